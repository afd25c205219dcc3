// Estimate: one training job on one hardware choice -> time with its range, cost on-demand
// vs spot, the step-time breakdown, the memory per GPU, assumptions and warnings.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { bars, stacked } from '../charts.js';
import { el, facts, hours, int, money, notes, num, pct, seconds, table } from '../format.js';
import { verdictBox, verdictOf, verdictText } from '../feasibility.js';
import { chartBox, formView } from './common.js';

// On-demand against spot: prices, totals with their range, wall time with its range (spot's
// includes interruptions), unit costs, and the spot interruption model.
function costTable(cost, time = {}) {
  const c = cost.currency;
  const od = cost.ondemand;
  const sp = cost.spot;
  const rows = [
    ['Price per instance-hour', od ? money(od.price_per_hour, c) : '—', sp ? money(sp.price_per_hour, c) : '—'],
    ['Expected total', od ? money(od.total, c) : '—', sp ? (sp.viable ? money(sp.expected_total, c) : 'not viable') : '—'],
    ['P10–P90 total', od ? `${money(od.p10_total)} – ${money(od.p90_total)}` : '—',
      sp && sp.viable ? `${money(sp.p10_total)} – ${money(sp.p90_total)}` : '—'],
    ['Wall time', od ? hours(od.hours) : '—', sp && sp.viable ? hours(sp.wall_hours) : '—'],
    ['P10–P90 wall time', od ? timeRange(time) : '—',
      sp && sp.viable && Number.isFinite(sp.p10_wall_hours) ? timeRange({ p10_hours: sp.p10_wall_hours, p90_hours: sp.p90_wall_hours }) : '—'],
    ['Per epoch', od ? money(od.per_epoch, c) : '—', sp ? money(sp.per_epoch, c) : '—'],
    ['Per million tokens', od ? money(od.per_million_tokens, c) : '—', sp ? money(sp.per_million_tokens, c) : '—'],
  ];
  if (sp) {
    rows.push(['Expected interruptions', '—', num(sp.expected_interruptions, 2)]);
    rows.push(['Checkpoint every', '—', sp.checkpoint_interval_minutes ? `${num(sp.checkpoint_interval_minutes, 3)} min` : '—']);
    rows.push(['Spot price basis', '—', sp.price_basis === 'history'
      ? `history (${sp.price_history.observations} observations)` : 'current price']);
  }
  const t = table(['', 'On-demand', 'Spot'], rows, `Cost (${c})`);
  t.id = 'estimate-cost';
  return t;
}

// The step's parts: the model's bottleneck name, the chart's label, the breakdown field.
const stepParts = [['compute', 'compute', 'compute_s'], ['memory_bandwidth', 'memory', 'memory_s'],
  ['communication', 'communication', 'communication_s'], ['pipeline_bubble', 'pipeline bubble', 'pipeline_bubble_s'],
  ['optimizer', 'optimizer', 'optimizer_s'], ['input_pipeline', 'input', 'input_s'],
  ['launch_overhead', 'overhead', 'overhead_s']];

// The P10–P90 range of the time; a fixed duration (a job of N hours) has none.
function timeRange(t) {
  if (t.p10_hours === t.p90_hours && t.p10_hours !== null && t.p10_hours !== undefined) return 'fixed duration';
  return `${hours(t.p10_hours)} – ${hours(t.p90_hours)}`;
}

// The estimate's facts: time, throughput and MFU only when it fits (otherwise none of them
// is the plan's), the layout and micro-batch always.
function trainingFacts(a, v) {
  const t = a.time || {};
  const l = a.layout || {};
  const planned = v.fits ? [
    ['Total time', hours(t.total_hours)],
    ['P10–P90', timeRange(t)],
    ['Throughput', `${num(a.throughput?.samples_per_s)} samples/s` +
      (a.throughput?.tokens_per_s ? `, ${num(a.throughput.tokens_per_s)} tokens/s` : '')],
  ] : [['Verdict', v.reasons.some((r) => r.code === 'does_not_fit') ? 'does not fit' : 'not feasible']];
  const rest = [
    ['Precision', a.precision],
    ['Layout', `TP ${l.tensor_parallel} × PP ${l.pipeline_parallel} × DP ${l.data_parallel}, ZeRO ${l.zero_stage}`],
    ['Micro-batch', `${a.micro_batch_size} × ${a.gradient_accumulation_steps} accumulation`],
  ];
  const speed = v.fits ? [
    ['MFU', pct(a.mfu)],
    ['Scaling efficiency', pct(a.scaling_efficiency)],
    ['Steps', int(t.steps)],
    ['Samples', num(t.total_samples)],
  ] : [];
  return facts([...planned, ...rest, ...speed]);
}

function renderTraining(a, result) {
  const v = verdictOf(a);
  result.append(el('h3', { text: `${a.workload.name} on ${a.hardware.total_gpus} × ${a.hardware.gpu}` }));
  if (!v.feasible) result.append(verdictBox(v, 'estimate-verdict'));
  result.append(trainingFacts(a, v));
  if (v.fits && v.priced && a.cost) result.append(costTable(a.cost, a.time));
  const charts = el('div', { class: 'charts' });
  let drawStep = null;
  if (v.fits && a.breakdown) {  // the step of a plan that cannot run is not drawn
    const b = a.breakdown;
    const values = stepParts.map(([, , field]) => b[field]);
    const highlight = stepParts.findIndex(([name]) => name === a.bottleneck);
    const [stepFig, stepCanvas] = chartBox(`Step time ${seconds(a.step_time_s)} — bottleneck: ` +
      `${String(a.bottleneck).replace(/_/g, ' ')} (${pct(a.bottleneck_share)})`);
    stepFig.id = 'estimate-breakdown';
    charts.append(stepFig);
    drawStep = () => bars(stepCanvas, stepParts.map(([, label]) => label), values, { unit: 'seconds per step', highlight });
  }
  const m = a.memory;
  const [memFig, memCanvas] = chartBox(
    `Memory per GPU: ${num(m.per_gpu_gb.total)} of ${num(m.capacity_gb)} GB — ${m.verdict.replace(/_/g, ' ')}, ` +
    `largest micro-batch ${int(m.max_micro_batch)}`, 'chart short');
  memFig.id = 'estimate-memory';
  charts.append(memFig);
  result.append(notes(a), charts);
  if (drawStep) drawStep();
  const g = m.per_gpu_gb;
  stacked(memCanvas, [['weights', g.weights], ['gradients', g.gradients], ['optimizer', g.optimizer],
    ['activations', g.activations], ['overhead', g.overhead]], { unit: 'GB', capacity: m.capacity_gb });
}

// The status line: the time and on-demand cost of a plan; for an option that does not fit,
// why and the nearest change (no time); for another infeasible one, why and its time alone.
function summary(a) {
  const v = verdictOf(a);
  if (!v.fits) return verdictText(v);
  if (!v.feasible) return `${verdictText(v)} Time alone: ${hours(a.time?.total_hours)}.`;
  return `Estimated: ${hours(a.time.total_hours)}` +
    (a.cost?.ondemand?.total !== null && a.cost?.ondemand?.total !== undefined
      ? `, ${money(a.cost.ondemand.total, a.cost.currency)} on-demand` : '');
}

export const estimateView = formView({
  name: 'estimate',
  form: '#estimate-form',
  run: (form, signal) => api('/api/v1/estimates/training', { method: 'POST', body: formToBody(form), signal }),
  render: renderTraining,
  summary,
});
