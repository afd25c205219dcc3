// Serving: an inference load and latency target -> replicas, latency against the target,
// the batch-latency curve, cost per month and per million tokens.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { xy } from '../charts.js';
import { el, facts, int, money, notes, num, seconds, table } from '../format.js';
import { verdictBox, verdictOf, verdictText } from '../feasibility.js';
import { chartBox, formView } from './common.js';

// The answer and the latency target it was asked for (null when none was given).
async function run(form, signal) {
  const body = formToBody(form);
  const answer = await api('/api/v1/estimates/inference', { method: 'POST', body, signal });
  return { answer, slo: typeof body.latency_slo_ms === 'number' ? body.latency_slo_ms / 1000 : null };
}

function render({ answer: a, slo }, result) {
  const c = a.cost.currency;
  const v = verdictOf(a);
  result.append(el('h3', { text: `${a.workload.name} on ${a.hardware.gpu}` }));
  if (!v.feasible) result.append(verdictBox(v, 'serving-verdict'));
  result.append(facts([
    ['Replicas', v.fits ? `${int(a.replicas)} × ${a.gpus_per_replica} GPU(s) (${int(a.instances)} instance(s))` : 'none: does not fit'],
    ['Latency at batch ' + int(a.batch), slo === null ? seconds(a.latency_s)
      : `${seconds(a.latency_s)} (target ${seconds(slo)}) — ${a.slo_met ? 'met' : 'not met'}`],
    ['Time to first token', seconds(a.ttft_s)],
    ['Time per output token', seconds(a.tpot_s)],
    ['Capacity', `${num(a.capacity_requests_per_s)} requests/s`],
    ['Memory per GPU', `${num(a.memory.total_gb)} of ${num(a.memory.capacity_gb)} GB`],
  ]));
  // The cost of a plan that does not fit or misses its target is not the plan's: not shown.
  if (v.feasible) {
    const rows = [];
    for (const [kind, cost] of [['on-demand', a.cost.ondemand], ['spot', a.cost.spot]]) {
      if (!cost) continue;
      rows.push([kind, money(cost.per_hour, c), money(cost.per_month, c), money(cost.per_million_tokens, c),
        money(cost.per_million_input_and_output_tokens, c), money(cost.per_thousand_requests, c)]);
    }
    const t = table(['Price', 'Per hour', 'Per month', 'Per million output tokens',
      'Per million prompt + output tokens', 'Per thousand requests'], rows, `Cost (${c})`);
    t.id = 'serving-cost';
    result.append(el('div', { class: 'scroll' }, t));
  }
  const [fig, canvas] = chartBox('Latency per request against batch size, one replica');
  fig.id = 'serving-curve';
  result.append(notes(a), fig);
  const curve = a.curve || [];
  const maxBatch = curve.length ? curve[curve.length - 1].batch : 1;
  xy(canvas, [
    { label: 'end-to-end latency (s)', points: curve.map((p) => ({ x: p.batch, y: p.latency_s })), line: true },
    { label: 'time to first token (s)', points: curve.map((p) => ({ x: p.batch, y: p.ttft_s })), line: true },
    ...(slo === null ? [] : [{ label: 'latency target', points: [{ x: 1, y: slo }, { x: maxBatch, y: slo }], line: true, color: '#d14a7c', dash: [6, 4], radius: 0 }]),
    ...(a.batch ? [{ label: 'chosen batch', points: [{ x: a.batch, y: a.latency_s }], color: '#d9622b', radius: 7, pointStyle: 'rectRot' }] : []),
  ], { x: 'batch (concurrent requests)', y: 'seconds', logX: maxBatch > 16 });
}

// The status line: replicas of a plan that meets its target, or why there is none.
function summary({ answer: a }) {
  const v = verdictOf(a);
  if (!v.feasible) return verdictText(v);
  return `${a.replicas} replica(s); SLO ${a.slo_met ? 'met' : 'not met'}.`;
}

export const servingView = formView({
  name: 'serving',
  form: '#serving-form',
  parts: { workload: { defaultPreset: 'llama-2-7b', family: ['decoder', 'moe', 'encoder', 'encoder_decoder'] },
    job: { batch: false }, pricing: { training: false } },
  run,
  render,
  summary,
});
