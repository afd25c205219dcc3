// Estimate: one training job on one hardware choice -> time with its range, cost on-demand
// vs spot, the step-time breakdown, the memory per GPU, assumptions and warnings.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { bars, stacked } from '../charts.js';
import { el, facts, hours, int, money, notes, num, pct, table } from '../format.js';
import { chartBox, formView } from './common.js';

function costTable(cost) {
  const c = cost.currency;
  const od = cost.ondemand;
  const sp = cost.spot;
  const rows = [
    ['Price per instance-hour', od ? money(od.price_per_hour, c) : '—', sp ? money(sp.price_per_hour, c) : '—'],
    ['Expected total', od ? money(od.total, c) : '—', sp ? (sp.viable ? money(sp.expected_total, c) : 'not viable') : '—'],
    ['P10–P90 total', od ? `${money(od.p10_total)} – ${money(od.p90_total)}` : '—',
      sp && sp.viable ? `${money(sp.p10_total)} – ${money(sp.p90_total)}` : '—'],
    ['Wall time', od ? hours(od.hours) : '—', sp && sp.viable ? hours(sp.wall_hours) : '—'],
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

function renderTraining(a, result) {
  const t = a.time;
  result.append(
    el('h3', { text: `${a.workload.name} on ${a.hardware.total_gpus} × ${a.hardware.gpu}` }),
    facts([
      ['Total time', hours(t.total_hours)],
      ['P10–P90', `${hours(t.p10_hours)} – ${hours(t.p90_hours)}`],
      ['Throughput', `${num(a.throughput.samples_per_s)} samples/s` +
        (a.throughput.tokens_per_s ? `, ${num(a.throughput.tokens_per_s)} tokens/s` : '')],
      ['Precision', a.precision],
      ['Layout', `TP ${a.layout.tensor_parallel} × PP ${a.layout.pipeline_parallel} × DP ${a.layout.data_parallel}, ZeRO ${a.layout.zero_stage}`],
      ['Micro-batch', `${a.micro_batch_size} × ${a.gradient_accumulation_steps} accumulation`],
      ['MFU', pct(a.mfu)],
      ['Scaling efficiency', pct(a.scaling_efficiency)],
      ['Steps', int(t.steps)],
      ['Samples', num(t.total_samples)],
    ]),
    costTable(a.cost),
  );
  const b = a.breakdown;
  const values = stepParts.map(([, , field]) => b[field]);
  const highlight = stepParts.findIndex(([name]) => name === a.bottleneck);
  const [stepFig, stepCanvas] = chartBox(`Step time ${num(a.step_time_s * 1000, 3)} ms — bottleneck: ` +
    `${a.bottleneck.replace(/_/g, ' ')} (${pct(a.bottleneck_share)})`);
  stepFig.id = 'estimate-breakdown';
  const m = a.memory;
  const [memFig, memCanvas] = chartBox(
    `Memory per GPU: ${num(m.per_gpu_gb.total)} of ${num(m.capacity_gb)} GB — ${m.verdict.replace(/_/g, ' ')}, ` +
    `largest micro-batch ${int(m.max_micro_batch)}`, 'chart short');
  memFig.id = 'estimate-memory';
  const charts = el('div', { class: 'charts' }, stepFig, memFig);
  result.append(charts, notes(a));
  bars(stepCanvas, stepParts.map(([, label]) => label), values, { unit: 'seconds per step', highlight });
  const g = m.per_gpu_gb;
  stacked(memCanvas, [['weights', g.weights], ['gradients', g.gradients], ['optimizer', g.optimizer],
    ['activations', g.activations], ['overhead', g.overhead]], { unit: 'GB', capacity: m.capacity_gb });
}

export const estimateView = formView({
  name: 'estimate',
  form: '#estimate-form',
  run: (form, signal) => api('/api/v1/estimates/training', { method: 'POST', body: formToBody(form), signal }),
  render: renderTraining,
  summary: (a) => `Estimated: ${hours(a.time.total_hours)}` +
    (a.cost.ondemand ? `, ${money(a.cost.ondemand.total, a.cost.currency)} on-demand` : ''),
});
