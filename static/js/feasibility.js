// Whether an option the API answered is a plan one can act on, read the same way in every
// view: a training estimate, a batch result, a compare row, a serving plan or a
// recommendation item. The API's `feasibility` object is the verdict when it is given; a
// memory verdict of does_not_fit (`memory_verdict`, `memory.verdict`) is infeasible whether
// or not it is given (older servers answer the memory verdict only), and so is a serving plan
// whose latency target is not met. An infeasible option is shown with its reasons and the
// nearest change, never with a time or cost as if it were the plan's.
import { el, int, num } from './format.js';

// Reason codes in words, for options whose reason has no detail.
const reasonNames = {
  does_not_fit: 'does not fit in GPU memory',
  no_price: 'no price',
  over_deadline: 'misses the deadline',
  over_budget: 'over the budget',
  slo_not_met: 'does not meet the latency target',
  spot_not_viable: 'spot is not viable (interrupted faster than it progresses)',
  doubtful_price: 'its price is flagged as doubtful',
};

// The short name of a reason code ("does not fit in GPU memory"); unknown codes as words.
export function reasonName(code) {
  return reasonNames[code] || String(code || 'not feasible').replace(/_/g, ' ');
}

// The reasons the API gave ([{code, detail}]), keeping only well-formed ones.
function givenReasons(f) {
  if (!f || !Array.isArray(f.reasons)) return [];
  return f.reasons.filter((r) => r && typeof r === 'object' && typeof r.code === 'string')
    .map((r) => ({ code: r.code, detail: typeof r.detail === 'string' ? r.detail : '' }));
}

// Where an older answer says how memory does not fit: its own reason, or the figures it has.
function memoryDetail(a) {
  if (typeof a.does_not_fit_reason === 'string' && a.does_not_fit_reason) return a.does_not_fit_reason;
  const m = a.memory;
  const need = a.memory_per_gpu_gb ?? m?.per_gpu_gb?.total ?? m?.total_gb;
  const have = m?.capacity_gb;
  if (Number.isFinite(need) && Number.isFinite(have)) return `needs ${num(need)} GB per GPU; it has ${num(have)} GB`;
  if (Number.isFinite(need)) return `needs ${num(need)} GB per GPU`;
  return '';
}

// The nearest change an older answer implies: the fewest GPUs of this type that fit.
function impliedChange(a) {
  const gpus = a.smallest_fitting_gpus ?? a.smallest_fitting_layout?.gpus;
  return Number.isFinite(gpus) ? `use at least ${int(gpus)} GPUs of this type` : null;
}

// The verdict on one option: {feasible, fits, priced, reasons: [{code, detail}], nearest}.
// `fits` is false when memory does not fit (no time, throughput or cost is the plan's);
// `priced` is false when the option has no price (no cost or value is the plan's).
export function verdictOf(a) {
  if (!a || typeof a !== 'object') return { feasible: true, fits: true, priced: true, reasons: [], nearest: null };
  const f = a.feasibility && typeof a.feasibility === 'object' ? a.feasibility : null;
  const reasons = givenReasons(f);
  const has = (code) => reasons.some((r) => r.code === code);
  const memory = a.memory_verdict ?? a.memory?.verdict;
  const outOfMemory = memory === 'does_not_fit';
  if (outOfMemory && !has('does_not_fit')) reasons.unshift({ code: 'does_not_fit', detail: memoryDetail(a) });
  const sloMissed = a.slo_met === false && !!a.replicas;  // serving: a plan that misses its target
  if (sloMissed && !has('slo_not_met')) reasons.push({ code: 'slo_not_met', detail: '' });
  const nearest = typeof f?.nearest_change === 'string' && f.nearest_change ? f.nearest_change
    : has('does_not_fit') ? impliedChange(a) : null;
  const feasible = (f ? f.feasible !== false : true) && !outOfMemory && !sloMissed;
  return {
    feasible,
    fits: !(has('does_not_fit') && (outOfMemory || f?.feasible === false)),
    priced: !(has('no_price') && f?.feasible === false),
    reasons: feasible ? [] : reasons,
    nearest: feasible ? null : nearest,
  };
}

// The verdict in one line, as a user reads it: "Does not fit in GPU memory: needs 97 GB per
// GPU; an L4 has 24 GB. Nearest change: use at least 16 GPUs of this type (ZeRO-3)."
export function verdictText(v) {
  const parts = v.reasons.map((r) => (r.detail ? `${reasonName(r.code)}: ${r.detail.replace(/[.\s]+$/, '')}` : reasonName(r.code)));
  const text = parts.length ? parts.join('; ') : 'not feasible';
  const head = text.charAt(0).toUpperCase() + text.slice(1);
  return v.nearest ? `${head}. Nearest change: ${v.nearest}.` : `${head}.`;
}

// The verdict's first reason in a word or two ("does not fit", "no price"), for labels.
export function verdictShort(v) {
  return v.reasons.length ? v.reasons[0].code.replace(/_/g, ' ') : 'not feasible';
}

// The verdict as a box above a result (p.verdict with role=alert), for an infeasible option.
export function verdictBox(v, id) {
  const box = el('p', { class: 'verdict', role: 'alert', text: verdictText(v) });
  if (id) box.id = id;
  return box;
}
