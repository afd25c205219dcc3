// Compare: one workload across GPUs (POST /api/v1/compare, each at its cheapest catalog
// price) or across catalog instances (one training estimate each, in one
// POST /api/v1/estimates/training:batch) -> time, cost and samples per currency unit as bars.
import { api, ApiError } from '../api.js';
import { formToBody, splitList } from '../forms.js';
import { bars } from '../charts.js';
import { cards, durationAxis, el, hours, money, notes, num, scroller, table } from '../format.js';
import { verdictOf, verdictShort, verdictText } from '../feasibility.js';
import { chartBox, formView } from './common.js';

// "aws/p4d.24xlarge" -> {cloud, instance_type} (cloud "" when there is no "cloud/").
function instances(form) {
  return splitList(form.elements._instances.value).map((s) => {
    const slash = s.indexOf('/');
    return slash <= 0 ? { cloud: '', instance_type: s } : { cloud: s.slice(0, slash), instance_type: s.slice(slash + 1) };
  });
}

// The per-GPU-hour price, saying when it is a share of a larger instance that cannot be rented
// one GPU at a time ("3.67 (share of 8-GPU p4d.24xlarge)").
function perGpuPrice(price, source) {
  if (price === null || price === undefined) return money(price);
  const n = source?.gpus_per_instance;
  return source?.single_gpu_rentable === false && n > 1
    ? `${money(price)} (share of ${n}-GPU ${source.instance_type})` : money(price);
}

// A row of the comparison from one option's figures and its verdict: an option that does not
// fit has no throughput, time, cost or value; one without a price no cost or value.
function row(label, v, figures) {
  const r = { label, verdict: v, ...figures };
  if (!v.fits) Object.assign(r, { samples_per_s: null, hours: null, cost: null, value: null, bottleneck: null });
  if (!v.priced) Object.assign(r, { cost: null, value: null });
  return r;
}

// Warning lines of one option, each named by the option.
const named = (label, warnings) => (Array.isArray(warnings) ? warnings : []).map((w) => `${label}: ${w}`);

async function run(form, signal) {
  const body = formToBody(form);
  if (form.querySelector('[name=_compare]:checked').value === 'gpus') {
    const c = await api('/api/v1/compare', { method: 'POST', body, signal });
    const ok = c.items.filter((r) => !r.error);
    return {
      title: `${c.workload.name} on ${c.gpus_per_node} GPU(s) of each kind`, currency: c.currency, by: 'GPU',
      rows: ok.map((r) => row(r.gpu, verdictOf(r), { precision: r.precision, samples_per_s: r.samples_per_s,
        hours: r.hours, cost: r.cost, price: perGpuPrice(r.price_per_gpu_hour, r.price_source),
        value: r.samples_per_currency_unit, bottleneck: r.bottleneck, memory: r.memory_verdict })),
      failed: c.items.filter((r) => r.error).map((r) => [r.gpu, r.error]),
      warnings: [...(c.warnings || []), ...ok.flatMap((r) => named(r.gpu, r.warnings))],
      assumptions: c.assumptions || [],
    };
  }
  const list = instances(form);
  if (list.length === 0 || list.some((i) => !i.cloud || !i.instance_type)) {
    throw new ApiError(422, { title: 'Unprocessable Content', detail: 'list instances as cloud/instance type',
      errors: [{ pointer: '/_instances', detail: 'each instance is cloud/instance type, e.g. aws/p4d.24xlarge' }] });
  }
  const scenarios = list.map((i) => ({ ...body, hardware: { ...i, nodes: 1 }, pricing: { kind: 'ondemand' } }));
  const batch = await api('/api/v1/estimates/training:batch', { method: 'POST', body: { scenarios }, signal });
  const rows = [];
  const failed = [];
  const warnings = [];
  const assumptions = new Set();  // the same defaults hold for most instances: each said once
  batch.items.forEach((item) => {
    const asked = list[item.index];
    const name = `${asked.cloud}/${asked.instance_type}`;
    if (!item.result) {
      failed.push([name, item.problem.errors?.[0]?.detail || item.problem.detail]);
      return;
    }
    const a = item.result;
    const cost = a.cost?.ondemand?.total ?? null;
    const price = a.cost?.ondemand?.price_per_hour;
    rows.push(row(name, verdictOf(a), { precision: a.precision, samples_per_s: a.throughput?.samples_per_s ?? null,
      hours: a.time?.total_hours ?? null, cost,
      price: money(Number.isFinite(price) ? price / a.hardware.total_gpus : null),
      value: cost ? a.time.total_samples / cost : null, bottleneck: a.bottleneck, memory: a.memory?.verdict,
      region: a.instance?.region }));
    warnings.push(...named(name, a.warnings));
    for (const s of a.assumptions || []) assumptions.add(s);
  });
  const first = batch.items.find((i) => i.result)?.result;
  return { title: `${first ? first.workload.name : 'The workload'} on each instance (on-demand)`,
    currency: first ? first.cost.currency : body.currency || 'USD', by: 'Instance', rows, failed,
    warnings, assumptions: [...assumptions] };
}

// Feasible rows first, in the API's order (best value first), then the infeasible ones.
function ranked(rows) {
  return [...rows.filter((r) => r.verdict.feasible), ...rows.filter((r) => !r.verdict.feasible)];
}

// The index of the best value among feasible rows; -1 when none has one.
function bestValue(rows) {
  let best = -1;
  rows.forEach((r, i) => {
    if (r.verdict.feasible && Number.isFinite(r.value) && (best < 0 || r.value > rows[best].value)) best = i;
  });
  return best;
}

// A table row: the figures of a feasible option; for one that does not fit, its verdict and
// nearest change in place of throughput, time, cost and value.
function cells(r, isBest) {
  const label = r.label + (r.region ? ` (${r.region})` : '');
  const v = r.verdict;
  if (!v.fits) {
    const out = [label, r.precision, r.price, { text: verdictText(v), span: 4, class: 'verdict' }, '—', 'does not fit'];
    out.rowClass = 'infeasible';
    return out;
  }
  const memory = String(r.memory ?? '—').replace(/_/g, ' ');
  const verdict = v.feasible ? (isBest ? `${memory} · best value` : memory) : verdictText(v);
  const out = [label, r.precision, r.price, num(r.samples_per_s), hours(r.hours),
    v.priced ? money(r.cost) : 'no price', v.priced ? num(r.value) : '—', String(r.bottleneck ?? '—').replace(/_/g, ' '), verdict];
  if (!v.feasible) out.rowClass = 'infeasible';
  else if (isBest) out.rowClass = 'best';
  return out;
}

// A chart label: the option, and why it has no bar when it is not feasible.
const chartLabel = (r) => (r.verdict.feasible ? r.label : `${r.label} (${verdictShort(r.verdict)})`);

function render(c, result) {
  const rows = ranked(c.rows);
  const best = bestValue(rows);
  const t = table([c.by, 'Precision', 'Per GPU-hour', 'Samples/s', 'Time', `Cost (${c.currency})`,
    `Samples per ${c.currency}`, 'Bottleneck', 'Verdict'], rows.map((r, i) => cells(r, i === best)), c.title);
  t.id = 'compare-items';
  cards(t, ['Time', `Cost (${c.currency})`], c.by);
  const time = durationAxis(rows.map((r) => r.hours));
  const [timeFig, timeCanvas] = chartBox(`Time (${time.unit})`);
  const [costFig, costCanvas] = chartBox(`Cost (${c.currency})`);
  const [valueFig, valueCanvas] = chartBox(`Samples per ${c.currency}` + (best >= 0 ? ` (best: ${rows[best].label})` : ''));
  const charts = el('div', { class: 'charts three', id: 'compare-charts' }, timeFig, costFig, valueFig);
  result.append(scroller(t), notes(c), charts);
  if (c.failed.length) {
    const f = table([c.by, 'Why not'], c.failed, 'Not estimated');
    f.id = 'compare-failed';
    result.append(f);
  }
  const labels = rows.map(chartLabel);
  bars(timeCanvas, labels, rows.map((r) => time.scale(r.hours)), { unit: time.unit });
  bars(costCanvas, labels, rows.map((r) => r.cost), { unit: c.currency });
  bars(valueCanvas, labels, rows.map((r) => r.value), { unit: `samples per ${c.currency}`, highlight: best });
}

// The status line: how many were compared, not estimated, and not feasible (named).
function summary(c) {
  const infeasible = c.rows.filter((r) => !r.verdict.feasible);
  return `${c.rows.length} compared${c.failed.length ? `, ${c.failed.length} not estimated` : ''}` +
    (infeasible.length ? `; not feasible: ${infeasible.map((r) => `${r.label} (${verdictShort(r.verdict)})`).join(', ')}` : '') + '.';
}

export const compareView = formView({
  name: 'compare',
  form: '#compare-form',
  run,
  render,
  summary,
});
