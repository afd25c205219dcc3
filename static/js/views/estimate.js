// Estimate: one training job on one hardware choice -> time with its range, cost on-demand
// vs spot, the step-time breakdown, the memory per GPU, assumptions and warnings.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { bars, stacked } from '../charts.js';
import { cards, count, durationAxis, el, facts, hours, int, money, notes, num, pct, scroller, seconds, table } from '../format.js';
import { verdictBox, verdictOf, verdictText } from '../feasibility.js';
import { chartBox, formView } from './common.js';
import { exportPanel } from '../export.js';

// On-demand against spot (and spot with an on-demand fallback, when asked): prices, totals
// with their range, wall time with its range (spot's includes interruptions), unit costs,
// and the spot interruption model. A fixed duration's cost has no range: its work has one.
function costTable(cost, time = {}) {
  const c = cost.currency;
  const od = cost.ondemand;
  const sp = cost.spot;
  const fb = cost.spot_with_fallback;
  const spOk = sp && sp.viable;
  const fixed = time.fixed_duration === true;
  const range = (lo, hi) => (fixed ? 'fixed duration' : `${money(lo)} – ${money(hi)}`);
  // One row per figure: [label, on-demand, spot, spot with fallback].
  const rows = [
    ['Price per instance-hour', od ? money(od.price_per_hour, c) : '—', sp ? money(sp.price_per_hour, c) : '—',
      fb ? `${money(fb.spot_price_per_hour, c)} spot, ${money(fb.ondemand_price_per_hour, c)} on-demand` : '—'],
    ['Expected total', od ? money(od.total, c) : '—', sp ? (sp.viable ? money(sp.expected_total, c) : 'not viable') : '—',
      fb ? money(fb.expected_total, c) : '—'],
    ['P10–P90 total', od ? range(od.p10_total, od.p90_total) : '—', spOk ? range(sp.p10_total, sp.p90_total) : '—',
      fb ? `P90 ${money(fb.p90_total, c)}` : '—'],
    ['Wall time', od ? hours(od.hours) : '—', spOk ? hours(sp.wall_hours) : '—', fb ? hours(fb.expected_hours) : '—'],
    ['P10–P90 wall time', od ? timeRange(time) : '—',
      spOk && Number.isFinite(sp.p10_wall_hours) ? timeRange({ ...time, p10_hours: sp.p10_wall_hours, p90_hours: sp.p90_wall_hours }) : '—',
      fb ? `P90 ${hours(fb.p90_hours)}` : '—'],
    ['Per epoch', od ? money(od.per_epoch, c) : '—', sp ? money(sp.per_epoch, c) : '—', fb ? money(fb.per_epoch, c) : '—'],
    ['Per million tokens', od ? money(od.per_million_tokens, c) : '—', sp ? money(sp.per_million_tokens, c) : '—',
      fb ? money(fb.per_million_tokens, c) : '—'],
  ];
  const interval = (m) => (Number.isFinite(m) && m > 0 ? hours(m / 60) : '—');
  if (sp || fb) {
    rows.push(['Expected interruptions', '—', sp ? num(sp.expected_interruptions, 2) : '—', fb ? num(fb.expected_interruptions, 2) : '—']);
    rows.push(['Checkpoint every', '—', sp ? interval(sp.checkpoint_interval_minutes) : '—', fb ? interval(fb.checkpoint_interval_minutes) : '—']);
    rows.push(['Spot price basis', '—', sp ? (sp.price_basis === 'history'
      ? `history (${sp.price_history.observations} observations)` : 'current price') : '—', fb ? String(fb.price_basis) : '—']);
  }
  if (fb) {
    rows.push(['Deadline', '—', '—', `${hours(fb.deadline_hours)} (${fb.meets_deadline ? 'met at P90' : 'missed even on demand'})`]);
    rows.push(['Move to on-demand after', '—', '—', fb.switch_at_hours > 0 ? hours(fb.switch_at_hours) : 'on demand from the start']);
    rows.push(['Chance of moving', '—', '—', pct(fb.fallback_probability)]);
  }
  // Only the columns that were asked for.
  const shown = [['On-demand', od], ['Spot', sp], ['Spot with fallback', fb]]
    .map(([name, part], i) => [name, part, i + 1]).filter(([, part]) => part);
  if (!shown.length) return null;  // no price (a GPU without one): the warning says so
  const t = table(['', ...shown.map(([name]) => name)], rows.map((r) => {
    const out = [r[0], ...shown.map(([, , i]) => r[i])];
    return out;
  }).filter((r) => r.slice(1).some((cell) => cell !== '—')), `Cost (${c})`);
  t.id = 'estimate-cost';
  cards(t, [], '');  // on a phone a card per figure, its price kinds side by side
  return scroller(t);
}

// The step's parts: the model's bottleneck name, the chart's label, the breakdown field.
const stepParts = [['compute', 'compute', 'compute_s'], ['memory_bandwidth', 'memory', 'memory_s'],
  ['communication', 'communication', 'communication_s'], ['pipeline_bubble', 'pipeline bubble', 'pipeline_bubble_s'],
  ['optimizer', 'optimizer', 'optimizer_s'], ['input_pipeline', 'input', 'input_s'],
  ['launch_overhead', 'overhead', 'overhead_s']];

// The P10–P90 range of the time; a fixed duration (a job of N hours) has none.
function timeRange(t) {
  if (t.fixed_duration === true || (t.p10_hours === t.p90_hours && Number.isFinite(t.p10_hours))) return 'fixed duration';
  return `${hours(t.p10_hours)} – ${hours(t.p90_hours)}`;
}

// The P10–P90 range of the work: what a fixed duration processes ("259 million – 420 million
// samples"), or what a reference run did.
function workRange(lo, hi) {
  return Number.isFinite(lo) && Number.isFinite(hi) ? `${count(lo)} – ${count(hi)} samples` : '—';
}

// The estimate's facts: time, throughput and MFU only when it fits (otherwise none of them
// is the plan's), the layout and micro-batch always.
function trainingFacts(a, v) {
  const t = a.time || {};
  const l = a.layout || {};
  const planned = v.fits ? [
    ['Total time', hours(t.total_hours)],
    ['P10–P90', timeRange(t)],
    ...(t.fixed_duration === true ? [['P10–P90 work', workRange(t.p10_samples, t.p90_samples)]] : []),
    ['Throughput', `${num(a.throughput?.samples_per_s)} samples/s` +
      (a.throughput?.tokens_per_s ? `, ${num(a.throughput.tokens_per_s)} tokens/s` : '')],
  ] : [['Verdict', v.reasons.some((r) => r.code === 'does_not_fit') ? 'does not fit' : 'not feasible']];
  const rest = [
    ['Precision', a.precision],
    ['Layout', layoutText(l)],
    ['Micro-batch', `${a.micro_batch_size} × ${a.gradient_accumulation_steps} accumulation`],
  ];
  const speed = v.fits ? [
    ['MFU', pct(a.mfu)],
    ['Scaling efficiency', pct(a.scaling_efficiency)],
    ['Steps', int(t.steps)],
    ['Samples', count(t.total_samples)],
  ] : [];
  return facts([...planned, ...referenceFacts(a.reference_run), ...rest, ...speed, ...calibrationFacts(a.calibration)]);
}

// "TP 2 × PP 2 × CP 2 × DP 1, ZeRO 1, 2 interleaved stages per GPU, sequence parallel":
// context parallelism, interleaving and sequence parallelism only where the layout has them.
function layoutText(l) {
  const cp = l.context_parallel > 1 ? ` × CP ${l.context_parallel}` : '';
  const vp = l.virtual_pipeline_stages > 1 ? `, ${l.virtual_pipeline_stages} interleaved stages per GPU` : '';
  const sp = l.sequence_parallel ? ', sequence parallel' : '';
  return `TP ${l.tensor_parallel} × PP ${l.pipeline_parallel}${cp} × DP ${l.data_parallel}, ZeRO ${l.zero_stage}${vp}${sp}`;
}

// A reference run's facts: what it ran on, for how long, and the work that makes.
function referenceFacts(r) {
  if (!r || typeof r !== 'object') return [];
  const h = r.hardware || {};
  const where = h.instance_type ? `${h.cloud}/${h.instance_type}` : `${h.nodes > 1 ? `${h.nodes} × ` : ''}${h.gpus_per_node} × ${h.gpu}`;
  return [
    ['Reference run', `${where}, ${hours(r.hours)} at ${r.precision} (${num(r.samples_per_s)} samples/s predicted)`],
    ['Reference work', `${count(r.samples)} samples (P10–P90 ${workRange(r.p10_samples, r.p90_samples)})`],
  ];
}

// The correction fitted on measured runs, when one applied: the factor, the runs and the
// model's error before and after (leave-one-out).
function calibrationFacts(c) {
  if (!c || typeof c !== 'object') return [['Calibration', 'none: no measured run of this GPU and workload family']];
  const used = c.runs === c.runs_available ? `${int(c.runs)} measured run(s)` : `${int(c.runs)} of ${int(c.runs_available)} measured runs`;
  return [['Calibration', `× ${num(c.factor, 3)} from ${used}; error ${pct(c.error_before)} before, ${pct(c.error_after)} after`]];
}

function renderTraining(a, result, form) {
  const v = verdictOf(a);
  result.append(el('h3', { text: `${a.workload.name} on ${a.hardware.total_gpus} × ${a.hardware.gpu}` }));
  if (!v.feasible) result.append(verdictBox(v, 'estimate-verdict'));
  result.append(trainingFacts(a, v));
  const cost = v.fits && v.priced && a.cost ? costTable(a.cost, a.time) : null;
  if (cost) result.append(cost);
  if (v.feasible && form) {  // a plan that cannot run is never exported (the API refuses it too)
    result.append(exportPanel('training', formToBody(form), { name: `gpuplan-${a.workload.id}`,
      label: `${a.workload.name} on ${a.hardware.total_gpus} × ${a.hardware.gpu}` }).box);
  }
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
    const axis = durationAxis(values, { from: 'seconds' });
    drawStep = () => bars(stepCanvas, stepParts.map(([, label]) => label), values.map(axis.scale),
      { unit: `${axis.unit} per step`, highlight });
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
  const c = a.cost || {};
  const [total, kind] = Number.isFinite(c.ondemand?.total) ? [c.ondemand.total, 'on-demand']
    : Number.isFinite(c.spot_with_fallback?.expected_total) ? [c.spot_with_fallback.expected_total, 'spot with fallback (expected)']
      : Number.isFinite(c.spot?.expected_total) ? [c.spot.expected_total, 'spot (expected)'] : [null, ''];
  return `Estimated: ${hours(a.time.total_hours)}` + (total !== null ? `, ${money(total, c.currency)} ${kind}` : '');
}

export const estimateView = formView({
  name: 'estimate',
  form: '#estimate-form',
  // The kept API key (Measured runs) is sent, so the key's own runs calibrate the estimate.
  run: (form, signal) => api('/api/v1/estimates/training', { method: 'POST', body: formToBody(form), signal, auth: true }),
  render: renderTraining,
  summary,
});
