// Charts through the vendored Chart.js (static/vendor/chartjs, global `Chart`). One chart
// per canvas: drawing again replaces the chart before.

const palette = ['#2f6fd6', '#d9622b', '#2a9d6e', '#9b4dca', '#c9a227', '#d14a7c', '#4aa3c9', '#777f8c'];
export const color = (i) => palette[i % palette.length];
export const paletteSize = palette.length;

function draw(canvas, config) {
  const old = Chart.getChart(canvas);
  if (old) old.destroy();
  config.options = {
    animation: false,
    responsive: true,
    maintainAspectRatio: false,
    ...config.options,
  };
  return new Chart(canvas, config);
}

// Whether values spread so far that one would squash the rest on a linear axis (the largest
// positive value over the smallest above 10): such axes are drawn logarithmic.
export function spreads(values) {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  return positive.length > 1 && Math.max(...positive) / Math.min(...positive) > 10;
}

// Horizontal bars: one value per label. Every label is drawn (none skipped): the chart grows
// taller with the labels instead.
export function bars(canvas, labels, values, { title, unit = '', highlight = -1 } = {}) {
  const holder = canvas.parentElement;
  if (holder && labels.length > 8) holder.style.height = `${Math.max(18, 4 + labels.length * 1.6)}rem`;
  return draw(canvas, {
    type: 'bar',
    data: {
      labels,
      datasets: [{
        label: unit,
        data: values,
        backgroundColor: values.map((_, i) => (i === highlight ? '#d9622b' : '#2f6fd6')),
      }],
    },
    options: {
      indexAxis: 'y',
      plugins: { legend: { display: false }, title: { display: !!title, text: title } },
      scales: { x: { beginAtZero: true, title: { display: !!unit, text: unit } },
        y: { ticks: { autoSkip: false } } },
    },
  });
}

// One horizontal bar stacked from parts, against a capacity drawn as the bar's remainder.
export function stacked(canvas, parts, { title, unit = '', capacity } = {}) {
  const datasets = parts.map(([label, value], i) => ({
    label, data: [value], backgroundColor: color(i), stack: 'one',
  }));
  const used = parts.reduce((s, [, v]) => s + (v || 0), 0);
  if (capacity && capacity > used) {
    datasets.push({ label: 'free', data: [capacity - used], backgroundColor: '#e4e7ee', stack: 'one' });
  }
  return draw(canvas, {
    type: 'bar',
    data: { labels: [''], datasets },
    options: {
      indexAxis: 'y',
      plugins: { title: { display: !!title, text: title }, legend: { position: 'bottom' } },
      scales: {
        x: { stacked: true, beginAtZero: true, max: capacity ? Math.max(capacity, used) : undefined,
          title: { display: !!unit, text: unit } },
        y: { stacked: true },
      },
    },
  });
}

// A log axis labels 1, 2 and 5 times a power of ten only, so its labels never crowd.
function logTicks(value) {
  const mantissa = Number((value / 10 ** Math.floor(Math.log10(value))).toPrecision(3));
  return [1, 2, 5].includes(mantissa) ? Number(value.toPrecision(3)).toLocaleString('en-US') : '';
}

// Points by series ({label, points: [{x, y}], line?, color?, dash?}), with axis titles;
// `logX`/`logY` draw an axis logarithmic (its title says so).
export function xy(canvas, series, { title, x, y, xTicks, logX = false, logY = false, xPad = 0 } = {}) {
  // A padded x range, so one point (or one date) sits in the middle, not in an empty axis.
  const xs = series.flatMap((s) => s.points.map((p) => p.x)).filter(Number.isFinite);
  let range = {};
  if (xPad > 0 && xs.length) {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    const pad = hi > lo ? (hi - lo) * 0.03 : xPad;
    range = { min: lo - pad, max: hi + pad };
  }
  return draw(canvas, {
    type: 'scatter',
    data: {
      datasets: series.map((s, i) => ({
        label: s.label,
        data: s.points,
        showLine: !!s.line,
        borderColor: s.color || color(i),
        backgroundColor: s.color || color(i),
        pointRadius: s.radius ?? 3,
        pointStyle: s.pointStyle || 'circle',
        borderDash: s.dash || [],
        borderWidth: s.line ? 2 : 1,
      })),
    },
    options: {
      plugins: { title: { display: !!title, text: title }, legend: { position: 'bottom' } },
      scales: {
        x: { type: logX ? 'logarithmic' : 'linear', title: { display: !!x, text: logX ? `${x} (log scale)` : x }, ...range,
          ticks: xTicks ? { callback: xTicks, maxRotation: 0, autoSkip: true }
            : logX ? { callback: logTicks, maxRotation: 0, autoSkip: false } : {} },
        y: logY ? { type: 'logarithmic', title: { display: !!y, text: `${y} (log scale)` },
          ticks: { callback: logTicks, autoSkip: false } }
          : { beginAtZero: true, title: { display: !!y, text: y } },
      },
    },
  });
}
