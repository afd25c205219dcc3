// Spot history: an instance type's spot price by zone over time, as lines.
import { api, cached, cachedAllPages } from '../api.js';
import { formToParams } from '../forms.js';
import { bars, color, paletteSize, xy } from '../charts.js';
import { el, money, notes, scroller, table } from '../format.js';
import { chartBox, formView } from './common.js';

const day = (ms) => new Date(ms).toISOString().slice(0, 10);

// The history, and the instance type's on-demand prices (the chart's reference line).
async function run(form, signal) {
  const params = formToParams(form);
  params.set('limit', '10000');
  const detail = `/api/v1/instances/${encodeURIComponent(params.get('cloud') || '')}/${encodeURIComponent(params.get('instance_type') || '')}`;
  const [history, instance] = await Promise.all([api(`/api/v1/prices/spot-history?${params}`, { signal }),
    api(detail, { signal }).catch((err) => (err.name === 'AbortError' ? Promise.reject(err) : null))]);
  return { ...history, ondemand: ondemandReference(instance, history, params.get('region')) };
}

// The on-demand price to draw against: the chosen region's, else the lowest among the regions
// the history covers, in the history's currency; null when there is none to compare with.
function ondemandReference(instance, history, region) {
  const currency = history.items[0]?.currency;
  const covered = new Set(history.items.map((it) => it.region));
  const offers = (instance?.regions || []).filter((r) => Number.isFinite(r.price_ondemand_per_hour) &&
    r.currency === currency && (region ? r.region === region : covered.has(r.region)));
  if (!offers.length) return null;
  const best = offers.reduce((a, b) => (b.price_ondemand_per_hour < a.price_ondemand_per_hour ? b : a));
  return { price: best.price_ondemand_per_hour, region: best.region };
}

function render(h, result) {
  const byZone = new Map();
  for (const it of h.items) {
    const key = `${it.region} ${it.zone || ''}`.trim();
    if (!byZone.has(key)) byZone.set(key, []);
    byZone.get(key).push({ x: Date.parse(it.observed_at), y: it.price_per_hour });
  }
  const currency = h.items[0]?.currency || '';
  const [fig, canvas] = chartBox(`${h.instance_type} (${h.cloud}): spot price per hour by zone`);
  fig.id = 'spot-chart';
  // Room for the legend: one line of it per zone or two on a phone.
  fig.querySelector('.canvas-holder').style.height = `${18 + 1.6 * byZone.size}rem`;
  result.append(fig);
  result.append(notes(h));
  if (h.items.length === 0) {
    result.prepend(el('p', { class: 'empty', text: 'No spot observations for this instance type and filter.' }));
  }
  const latest = [...byZone.entries()].map(([zone, pts]) => {
    const last = pts[pts.length - 1];
    return [zone, String(pts.length), day(pts[0].x), day(last.x), money(last.y, currency)];
  });
  const t = table(['Region and zone', 'Observations', 'First', 'Last', 'Last price / h'], latest, 'Zones');
  t.id = 'spot-zones';
  result.append(scroller(t));
  // Ticks name the day, or the day and hour when the series spans less than four days.
  const od = h.ondemand;
  if ([...byZone.values()].every((pts) => pts.length === 1)) {
    // One snapshot per zone: no line to draw over time, so the zones as bars, cheapest
    // first, with the on-demand price as the last (marked) bar to compare against.
    const sorted = [...byZone.entries()].sort((a, b) => a[1][0].y - b[1][0].y);
    const labels = [...sorted.map(([zone]) => zone), ...(od ? [`on-demand (${od.region})`] : [])];
    fig.querySelector('figcaption').textContent = `${h.instance_type} (${h.cloud}): spot price per hour by zone, ` +
      `one observation each${od ? `, against on-demand ${money(od.price, currency)}` : ''}`;
    bars(canvas, labels, [...sorted.map(([, pts]) => pts[0].y), ...(od ? [od.price] : [])],
      { unit: `price per hour (${currency})`, highlight: od ? labels.length - 1 : -1 });
    return;
  }
  const times = h.items.map((it) => Date.parse(it.observed_at));
  const short = times.length === 0 || Math.max(...times) - Math.min(...times) < 4 * 86400e3;
  const tick = short ? (v) => new Date(v).toISOString().slice(5, 16).replace('T', ' ') : (v) => day(v);
  // A line per zone in its own colour (dashed once the palette repeats), and the on-demand
  // price as a dashed reference across the whole span.
  const zones = [...byZone.entries()].map(([zone, pts], i) => ({ label: zone, points: pts, line: pts.length > 1,
    color: color(i), dash: i >= paletteSize ? [5, 3] : undefined, radius: pts.length > 1 ? 2 : 4 }));
  const span = times.length ? [Math.min(...times) - 86400e3 / 2, Math.max(...times) + 86400e3 / 2] : [];
  const reference = od && span.length ? [{ label: `on-demand ${money(od.price, currency)} (${od.region})`,
    points: span.map((x) => ({ x, y: od.price })), line: true, color: '#b3261e', dash: [8, 4], radius: 0 }] : [];
  xy(canvas, [...zones, ...reference],
    { x: short ? 'observed (UTC)' : 'observed', y: `price per hour (${currency})`, xTicks: tick, xPad: 86400e3 });
}

async function setup(form) {
  const cloud = form.elements.cloud;
  const region = form.elements.region;
  const types = form.querySelector('datalist');
  cloud.dataset.default = 'aws';
  const clouds = await cached('/api/v1/clouds');
  for (const c of clouds.items) {
    if (![...cloud.options].some((o) => o.value === c.id)) cloud.add(new Option(c.name, c.id));
  }
  if (!cloud.dataset.restored) cloud.value = cloud.dataset.default;
  const load = async () => {
    const c = encodeURIComponent(cloud.value);
    const [regions, offers] = await Promise.all([cached(`/api/v1/regions?cloud=${c}`),
      cachedAllPages(`/api/v1/instances?cloud=${c}&limit=500&price_kind=spot&sort=gpu_count`)]);
    const keep = region.value;
    region.replaceChildren(new Option('all', ''), ...regions.items.map((r) => new Option(r.id, r.id)));
    if ([...region.options].some((o) => o.value === keep)) region.value = keep;
    const names = [...new Set(offers.items.filter((o) => o.price_spot_per_hour !== null).map((o) => o.instance_type))];
    types.replaceChildren(...names.map((n) => new Option(n, n)));
  };
  for (const event of ['change', 'restore']) cloud.addEventListener(event, () => load().catch(() => {}));
  await load();
}

export const spotView = formView({
  name: 'spot',
  form: '#spot-form',
  setup: (form) => setup(form).catch(() => {}),
  run,
  render,
  summary: (h) => `${h.items.length} observations.`,
});
