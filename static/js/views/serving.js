// Serving: an inference load and latency target -> replicas, p95 latency at the planned
// load against the target, the engine and its batch limit, p50/p95 latencies, the latency
// curve against concurrent requests up to the engine's cap, cost per month and per million
// tokens. Either on given hardware (POST /api/v1/estimates/inference) or as a search of the
// catalog for the cheapest plan (POST /api/v1/recommendations with task "inference"), whose
// options each open the full plan on their instance.
import { api } from '../api.js';
import { formToBody, formToParams } from '../forms.js';
import { spreads, xy } from '../charts.js';
import { cards, el, facts, int, money, notes, num, pct, scroller, seconds, table } from '../format.js';
import { reasonName, verdictBox, verdictOf, verdictText } from '../feasibility.js';
import { navigate } from '../router.js';
import { itemNotes, priceKindName } from './recommend.js';
import { chartBox, formView } from './common.js';
import { exportPanel } from '../export.js';

// Whether the form asks for the cheapest plan in the catalog rather than one on given hardware.
const searching = (form) => form.querySelector('[name="_plan"]:checked')?.value === 'cheapest';

// The workload as the preset list names it ("Llama-3-8B"), for a search's heading (its
// answer does not name it); an own shape is "the workload".
function workloadName(form, body) {
  if (typeof body.workload !== 'string') return 'the workload';
  const option = form.querySelector('select[name=workload]')?.selectedOptions[0];
  return option ? option.text.replace(/ \([^)]*\)$/, '') : body.workload;
}

// The answer and the latency target it was asked for (null when none was given). A search
// also keeps the form's state as it was sent, so that an option can be opened from it.
async function run(form, signal) {
  const body = formToBody(form);
  const slo = typeof body.latency_slo_ms === 'number' ? body.latency_slo_ms / 1000 : null;
  if (searching(form)) {
    // The same workload, load and target, without hardware: every catalog offer, by cost.
    const request = { task: 'inference', objective: 'cost', ...body };
    const search = await api('/api/v1/recommendations', { method: 'POST', body: request, signal });
    return { search, slo, params: formToParams(form), workload: workloadName(form, body), request };
  }
  const answer = await api('/api/v1/estimates/inference', { method: 'POST', body, signal });
  return { answer, slo, request: body };
}

function render(got, result) {
  if (got.search) renderSearch(got, result);
  else renderPlan(got, result);
}

// --- One plan on given hardware --------------------------------------------------------

// "vLLM v1, max_num_seqs 256, token budget 2,048, GPU memory 90 %, CUDA graphs on (up to
// batch 512), chunked prefill on, ...": the engine the plan assumes (the answer's `engine`,
// as the server resolved it from its defaults and the request), each setting when given.
const engineNames = { vllm: 'vLLM', sglang: 'SGLang', tgi: 'TGI', 'tensorrt-llm': 'TensorRT-LLM' };
function engineText(e) {
  const name = e.name ? engineNames[String(e.name).toLowerCase()] || String(e.name) : 'engine';
  const version = e.version === undefined || e.version === null ? ''
    : /^\d/.test(String(e.version)) ? ` v${e.version}` : ` ${e.version}`;
  const parts = [`${name}${version}`];
  const on = (v) => (v ? 'on' : 'off');
  if (Number.isFinite(e.max_num_seqs)) parts.push(`max_num_seqs ${int(e.max_num_seqs)}`);
  if (Number.isFinite(e.max_num_batched_tokens)) parts.push(`token budget ${int(e.max_num_batched_tokens)}`);
  if (Number.isFinite(e.gpu_memory_utilization)) parts.push(`GPU memory ${pct(e.gpu_memory_utilization)}`);
  if (typeof e.cuda_graphs === 'boolean') {
    parts.push(`CUDA graphs ${on(e.cuda_graphs)}` +
      (e.cuda_graphs && Number.isFinite(e.graph_capture_max_batch) ? ` (up to batch ${int(e.graph_capture_max_batch)})` : ''));
  }
  for (const [key, text] of [['chunked_prefill', 'chunked prefill'], ['prefix_caching', 'prefix caching']]) {
    if (typeof e[key] === 'boolean') parts.push(`${text} ${on(e[key])}`);
  }
  if (Number.isFinite(e.max_model_len)) parts.push(`max_model_len ${int(e.max_model_len)}`);
  if (Number.isFinite(e.num_scheduler_steps)) parts.push(`scheduler steps ${int(e.num_scheduler_steps)}`);
  if (typeof e.frontend_multiprocessing === 'boolean') parts.push(`frontend multiprocessing ${on(e.frontend_multiprocessing)}`);
  return parts.join(', ');
}

// The limits on the batch (concurrent requests a replica runs), as the answer's `batch_cap`
// names them, and the one that binds (`binding`): "32, set by the client concurrency
// (client_concurrency 32); max_num_seqs 64, KV cache capacity 2,015, token budget 64".
const batchLimits = { max_num_seqs: 'max_num_seqs', kv_capacity: 'the KV cache capacity',
  token_budget: 'the token budget', client_concurrency: 'the client concurrency' };
function batchCapText(cap) {
  const named = (key) => `${batchLimits[key].replace(/^the /, '')} ${int(cap[key])}`;
  const given = Object.keys(batchLimits).filter((key) => Number.isFinite(cap[key]));
  const binding = typeof cap.binding === 'string' && cap.binding ? cap.binding : null;
  const others = given.filter((key) => key !== binding).map(named);
  if (!Number.isFinite(cap.client_concurrency)) others.push('no client limit');
  const head = binding
    ? `${int(cap.effective)}, set by ${batchLimits[binding] || binding} (${binding} ${int(cap[binding] ?? cap.effective)})`
    : int(cap.effective);
  return others.length ? `${head}; ${others.join(', ')}` : head;
}

// An operating point of one replica (`saturation`, `kv_limit`): "batch 256, 55.5 requests/s,
// 16,648 tokens/s, an iteration every 15.4 ms".
function pointText(p) {
  const parts = [`batch ${int(p.batch)}`, `${num(p.requests_per_s)} requests/s`, `${num(p.tokens_per_s)} tokens/s`];
  if (Number.isFinite(p.iteration_s)) parts.push(`an iteration every ${seconds(p.iteration_s)}`);
  return parts.join(', ');
}

// The facts the serving model gives about the engine, each only where the answer has it (a
// decoder's plan; an encoder's or a CNN's has none): the engine, the batch limit and which
// limit sets it, what one replica sustains at saturation (and with its KV cache alone), the
// load planned per replica and the rule that sized the replicas.
function engineFacts(a) {
  const pairs = [];
  const object = (v) => (v && typeof v === 'object' ? v : null);
  if (object(a.engine)) pairs.push(['Engine', engineText(a.engine)]);
  if (object(a.batch_cap)) pairs.push(['Batch limit', batchCapText(a.batch_cap)]);
  const sat = object(a.saturation);
  if (sat) pairs.push(['Saturation per replica', pointText(sat)]);
  const kv = object(a.kv_limit);
  if (kv && sat && kv.batch !== sat.batch) pairs.push(['KV cache alone (no engine caps)', pointText(kv)]);
  const planned = a.planned_requests_per_s_per_replica;
  if (Number.isFinite(planned)) {
    const share = sat && sat.requests_per_s > 0 ? ` (${pct(planned / sat.requests_per_s)} of saturation)` : '';
    pairs.push(['Planned load per replica', `${num(planned)} requests/s${share}`]);
  }
  if (typeof a.replica_rule === 'string' && a.replica_rule) pairs.push(['Replica rule', a.replica_rule]);
  return pairs;
}

// The mean, p50 and p95 latencies at the planned load per replica (the answer's `latency`),
// or null.
function latencyTable(a) {
  const latency = a.latency;
  if (!latency || typeof latency !== 'object') return null;
  const rows = [['ttft_s', 'Time to first token'], ['tpot_s', 'Time per output token'], ['e2e_s', 'End to end']]
    .filter(([key]) => latency[key] && typeof latency[key] === 'object')
    .map(([key, text]) => [text, seconds(latency[key].mean), seconds(latency[key].p50), seconds(latency[key].p95)]);
  if (!rows.length) return null;
  const load = Number.isFinite(a.planned_requests_per_s_per_replica)
    ? ` (${num(a.planned_requests_per_s_per_replica)} requests/s, Poisson arrivals)` : '';
  const t = table(['', 'Mean', 'p50', 'p95'], rows, `Latency per request at the planned load${load}, one replica`);
  t.id = 'serving-latency';
  return scroller(t);
}

// One scheduler iteration at the planned load (the answer's `iteration`): its terms and
// their share of the iteration, or null.
const iterationTerms = [['weights_s', 'Weights read'], ['kv_read_s', 'KV cache read'], ['compute_s', 'Compute'],
  ['sampling_s', 'Sampling'], ['kernel_floors_s', 'Kernel floors'], ['allreduce_s', 'Tensor-parallel all-reduce'],
  ['cpu_s', 'Host (CPU)']];
function iterationTable(it) {
  if (!it || typeof it !== 'object' || !Number.isFinite(it.total_s)) return null;
  const rows = iterationTerms.filter(([key]) => Number.isFinite(it[key]))
    .map(([key, text]) => [text, seconds(it[key]), it.total_s > 0 ? pct(it[key] / it.total_s) : '—']);
  rows.push(['Iteration', seconds(it.total_s), '']);
  const graphs = typeof it.cuda_graphs === 'boolean' ? `, CUDA graphs ${it.cuda_graphs ? 'on' : 'off'}` : '';
  const t = table(['Term', 'Time', 'Share'], rows,
    `One scheduler iteration at the planned load (mean batch ${num(it.batch)}${graphs})`);
  t.id = 'serving-iteration';
  return scroller(t);
}

// Where the plan runs: "gcp a3-highgpu-1g in asia-east1" when it is a catalog instance.
function instanceText(i) {
  return i && i.instance_type ? `${i.cloud} ${i.instance_type}${i.region ? ` in ${i.region}` : ''}` : null;
}

// Memory per GPU: the weights and KV cache in use of an engine plan that fits, within what
// the engine takes (gpu_memory_utilization of the GPU); otherwise the need against the
// capacity.
function memoryText(m, engine, fits) {
  if (engine && fits && Number.isFinite(m.weights_gb) && Number.isFinite(m.kv_cache_gb)) {
    return `${num(m.weights_gb)} GB weights + ${num(m.kv_cache_gb)} GB KV cache at the planned load, ` +
      `in the ${num(m.total_gb)} of ${num(m.capacity_gb)} GB the engine takes`;
  }
  return `${num(m.total_gb)} of ${num(m.capacity_gb)} GB`;
}

function renderPlan({ answer: a, slo, request }, result) {
  const c = a.cost.currency;
  const v = verdictOf(a);
  // The serving model's decoder answer: latencies at the planned load (p95 end to end, p50
  // first token and per token), the batch the mean number of requests in flight there.
  const planned = !!(a.engine && typeof a.engine === 'object');
  const cap = a.batch_cap && a.batch_cap.effective >= 1 ? a.batch_cap.effective : null;
  result.append(el('h3', { text: `${a.workload.name} on ${a.hardware.gpu}` }));
  if (!v.feasible) result.append(verdictBox(v, 'serving-verdict'));
  const where = instanceText(a.instance);
  const latency = slo === null ? seconds(a.latency_s)
    : `${seconds(a.latency_s)} (target ${seconds(slo)}) — ${a.slo_met ? 'met' : 'not met'}`;
  result.append(facts([
    ...(where ? [['Instance', where]] : []),
    ['Replicas', v.fits ? `${int(a.replicas)} × ${a.gpus_per_replica} GPU(s) (${int(a.instances)} instance(s))` : 'none: does not fit'],
    ...(planned ? [
      ['Latency (p95, end to end, at the planned load)', latency],
      ['Time to first token (p50)', seconds(a.ttft_s)],
      ['Time per output token (p50)', seconds(a.tpot_s)],
      ['Requests in flight at the planned load (mean)', `${int(a.batch)}${cap === null ? '' : ` of at most ${int(cap)}`}`],
    ] : [
      ['Latency at batch ' + int(a.batch), latency],
      ['Time to first token', seconds(a.ttft_s)],
      ['Time per output token', seconds(a.tpot_s)],
    ]),
    ['Capacity', `${num(a.capacity_requests_per_s)} requests/s`],
    ['Memory per GPU', memoryText(a.memory, a.engine, v.fits)],
    ...engineFacts(a),
  ]));
  const percentiles = latencyTable(a);
  if (percentiles) result.append(percentiles);
  const iteration = iterationTable(a.iteration);
  if (iteration) result.append(iteration);
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
    result.append(scroller(t), exportPanel('inference', request, { name: `gpuplan-${a.workload.id}`,
      label: `${a.workload.name} on ${a.hardware.gpu}` }).box);
  }
  // The curve: each point a replica kept full with `batch` requests in flight (closed loop),
  // batch 1, 2, 4 ... up to the engine's cap; its latency the p95 end to end, its first
  // token the p50. The planned load (Poisson arrivals, fewer in flight) is marked apart.
  const binding = a.batch_cap && a.batch_cap.binding ? `, set by ${a.batch_cap.binding}` : '';
  const title = planned && cap !== null
    ? `Latency per request against concurrent requests in flight (the batch), up to the engine's cap of ${int(cap)}${binding}; one replica`
    : 'Latency per request against batch size, one replica';
  const [fig, canvas] = chartBox(title);
  fig.id = 'serving-curve';
  result.append(notes(a), fig);
  const curve = a.curve || [];
  const maxBatch = curve.length ? curve[curve.length - 1].batch : 1;
  const marks = [];
  if (planned && a.batch) {
    const e2e = (a.latency && a.latency.e2e_s) || {};
    if (Number.isFinite(e2e.p50)) {
      marks.push({ label: 'planned load: p50 end to end', points: [{ x: a.batch, y: e2e.p50 }], color: '#2a9d6e', radius: 6, pointStyle: 'triangle' });
    }
    marks.push({ label: 'planned load: p95 end to end', points: [{ x: a.batch, y: a.latency_s }], color: '#9b4dca', radius: 7, pointStyle: 'rectRot' });
  } else if (a.batch) {
    marks.push({ label: 'chosen batch', points: [{ x: a.batch, y: a.latency_s }], color: '#d9622b', radius: 7, pointStyle: 'rectRot' });
  }
  // End to end solid blue, first token dotted gold: apart from each other, from the target
  // (dashed pink) and from the markers; a log axis when the first token is far below the rest.
  const latencies = curve.flatMap((p) => [p.latency_s, p.ttft_s]);
  xy(canvas, [
    { label: planned ? 'end-to-end latency, p95 (s)' : 'end-to-end latency (s)', points: curve.map((p) => ({ x: p.batch, y: p.latency_s })), line: true, color: '#2f6fd6' },
    { label: planned ? 'time to first token, p50 (s)' : 'time to first token (s)', points: curve.map((p) => ({ x: p.batch, y: p.ttft_s })),
      line: true, color: '#b8860b', dash: [2, 3], pointStyle: 'crossRot' },
    ...(slo === null ? [] : [{ label: 'latency target', points: [{ x: 1, y: slo }, { x: maxBatch, y: slo }], line: true, color: '#d14a7c', dash: [6, 4], radius: 0 }]),
    ...marks,
  ], { x: planned ? `concurrent requests in flight (batch, up to the cap ${int(cap ?? maxBatch)})` : 'batch (concurrent requests)',
    y: 'seconds', logX: maxBatch > 16, logY: spreads(latencies) });
}

// --- The cheapest plans in the catalog -------------------------------------------------

// The form's state for the full plan of one option: the search's workload, load, target and
// engine options, on the option's catalog instance (its replicas are sized again by the
// estimate, as the search sized them). A link like any other: Back returns to the search.
function optionParams(params, it) {
  const next = new URLSearchParams(params);
  for (const key of [...next.keys()]) {
    if (key.startsWith('constraints.') || key === 'limit') next.delete(key);
  }
  next.set('_plan', 'given');
  next.set('_hardware', 'instance');
  next.set('hardware.cloud', it.cloud);
  next.set('hardware.region', it.region);
  next.set('hardware.instance_type', it.instance_type);
  next.set('hardware.nodes', '1');
  next.set('pricing.kind', 'both');  // the option's own price kind is among them
  return next;
}

// The button that opens an option's full plan (early in its row: the notes can be long).
function openButton(params, it) {
  const button = el('button', { type: 'button', class: 'small',
    'aria-label': `Open the full plan on ${it.cloud} ${it.instance_type} in ${it.region}`, text: 'Open' });
  button.addEventListener('click', () => navigate('serving', optionParams(params, it)));
  return button;
}

// A ranked option: where, how many replicas of how many GPUs, its p95 latencies at the
// planned load (end to end, first token, per output token), what one replica sustains at
// saturation, and cost; an infeasible item (which a ranking should never hold) shows its
// verdict instead.
function optionRow(it, c, params, onExport) {
  const v = verdictOf(it);
  const p95 = it.latency_p95 && typeof it.latency_p95 === 'object' ? it.latency_p95 : {};
  const plan = el('span', { class: 'plan-buttons' }, openButton(params, it));
  if (v.feasible) {
    const exportIt = el('button', { type: 'button', class: 'small secondary', text: 'Export',
      'aria-label': `Export option ${it.rank} as SkyPilot or Kubernetes` });
    exportIt.addEventListener('click', onExport);
    plan.append(' ', exportIt);
  }
  const head = [String(it.rank), plan, it.instance_type, it.cloud, it.region, it.gpu,
    `${int(it.replicas)} × ${int(it.gpus_per_replica)} GPU(s)`, int(it.nodes), priceKindName(it.price_kind)];
  const figures = v.feasible
    ? [seconds(p95.e2e_s ?? it.latency_s), seconds(p95.ttft_s), seconds(p95.tpot_s),
      num(it.saturated_requests_per_s),
      money(it.cost_per_hour, c), money(it.cost_per_month, c), 'feasible']
    : [{ text: verdictText(v), span: 7, class: 'verdict' }];
  const out = [...head, ...figures, itemNotes(it)];
  if (!v.feasible) out.rowClass = 'infeasible';
  return out;
}

// Options not ranked, by reason ("slo_not_met: 335"), in words; only reasons that occurred.
const rejectedNames = {
  precision_unsupported: 'the GPU lacks the precision',
  node_too_large: 'the instance has more GPUs than allowed',
  tensor_parallel_too_large: 'the tensor-parallel degree is wider than the instance',
  over_max_gpus: 'the load needs more GPUs than one plan may use',
};
function rejectedTable(rejected) {
  const rows = Object.entries(rejected || {}).filter(([, n]) => n > 0)
    .map(([code, n]) => [rejectedNames[code] || reasonName(code), int(n)]);
  const t = table(['Reason', 'Options'], rows, 'Options not ranked, by reason');
  t.id = 'serving-rejected';
  return t;
}

function renderSearch({ search: r, params, workload, request }, result) {
  const c = r.currency;
  const first = r.items.find((it) => verdictOf(it).feasible);
  const label = (it) => `#${it.rank}: ${it.instance_type} (${it.cloud} ${it.region}), ${priceKindName(it.price_kind)}`;
  const exporter = exportPanel('recommendation', request, { name: 'gpuplan-serving', item: first?.rank, label: first ? label(first) : '' });
  result.append(el('h3', { text: `The cheapest plans for ${workload} in the catalog` }));
  if (r.stopped_early && typeof r.stopped_early === 'object') {
    result.append(el('p', { class: 'warning', text: `The search stopped early: ${r.stopped_early.detail || ''}` }));
  }
  const rejected = rejectedTable(r.rejected);
  if (r.items.length === 0) {
    // Nothing to rank: why every option was left out is the answer.
    result.append(el('p', { class: 'empty', text: 'Nothing feasible for this load and target: the reasons follow.' }),
      rejected, notes(r));
    return;
  }
  const options = table(['#', 'Full plan', 'Instance type', 'Cloud', 'Region', 'GPU', 'Replicas × GPUs each', 'Instances',
    'Price kind', 'Latency p95', 'First token p95', 'Per token p95', 'Saturation (req/s)', 'Per hour', 'Per month', 'Feasibility', 'Notes'],
  r.items.map((it) => optionRow(it, c, params, () => exporter.show(it.rank, label(it)))),
  `Ranked by cost (${r.feasible} feasible of ${r.considered} considered; ${c}). Latencies: p95 at the planned ` +
    'load; saturation: the requests/s one replica sustains');
  options.id = 'serving-options';
  cards(options, ['Per month', 'Latency p95', 'Per hour'], 'Instance type');
  const more = el('details', { class: 'rejected' }, el('summary', { text: 'Options not ranked, by reason' }), rejected);
  result.append(scroller(options), ...(first ? [exporter.box] : []), notes(r), more);
}

// --- The form -----------------------------------------------------------------------------

// The folded engine options say how many are set ("Engine and quantization (2 set)"), so a
// link that sets some does not hide them.
function setup(form) {
  const box = form.querySelector('#s-engine-box');
  const summary = box.querySelector('summary');
  const plain = summary.textContent;
  const count = () => {
    const set = [...box.querySelectorAll('[name]')].filter((f) => f.value.trim() !== '').length;
    summary.textContent = set ? `${plain.replace(/ \(optional\)$/, '')} (${set} set)` : plain;
  };
  for (const event of ['change', 'input']) form.addEventListener(event, count);
  count();
}

// --- Status line ------------------------------------------------------------------------

// Replicas of a plan that meets its target, or why there is none; for a search, the
// cheapest option or that there is none.
function summary(got) {
  if (got.search) {
    const r = got.search;
    if (!r.items.length) return `Nothing feasible of ${r.considered} options: see the reasons.`;
    const first = r.items[0];
    return `${r.items.length} option(s) ranked, ${r.feasible} feasible of ${r.considered}; cheapest: ` +
      `${first.instance_type} (${first.cloud} ${first.region}), ${money(first.cost_per_month, r.currency)} a month.`;
  }
  const a = got.answer;
  const v = verdictOf(a);
  if (!v.feasible) return verdictText(v);
  return `${a.replicas} replica(s); SLO ${a.slo_met ? 'met' : 'not met'}.`;
}

export const servingView = formView({
  name: 'serving',
  form: '#serving-form',
  parts: { workload: { defaultPreset: 'llama-2-7b', family: ['decoder', 'moe', 'encoder', 'encoder_decoder'] },
    job: { batch: false }, pricing: { training: false } },
  setup,
  run,
  render,
  summary,
});
