// Compare: one workload across GPUs (POST /api/v1/compare, each at its cheapest catalog
// price) or across catalog instances (one training estimate each, in one
// POST /api/v1/estimates/training:batch) -> time, cost and samples per currency unit as bars.
import { api, ApiError } from '../api.js';
import { formToBody, splitList } from '../forms.js';
import { bars } from '../charts.js';
import { el, hours, money, num, table } from '../format.js';
import { chartBox, formView } from './common.js';

// "aws/p4d.24xlarge" -> {cloud, instance_type} (cloud "" when there is no "cloud/").
function instances(form) {
  return splitList(form.elements._instances.value).map((s) => {
    const slash = s.indexOf('/');
    return slash <= 0 ? { cloud: '', instance_type: s } : { cloud: s.slice(0, slash), instance_type: s.slice(slash + 1) };
  });
}

async function run(form, signal) {
  const body = formToBody(form);
  if (form.querySelector('[name=_compare]:checked').value === 'gpus') {
    const c = await api('/api/v1/compare', { method: 'POST', body, signal });
    return {
      title: `${c.workload.name} on ${c.gpus_per_node} GPU(s) of each kind`, currency: c.currency, by: 'GPU',
      rows: c.items.filter((r) => !r.error).map((r) => ({ label: r.gpu, precision: r.precision, samples_per_s: r.samples_per_s,
        hours: r.hours, cost: r.cost, price: r.price_per_gpu_hour, value: r.samples_per_currency_unit,
        bottleneck: r.bottleneck, memory: r.memory_verdict })),
      failed: c.items.filter((r) => r.error).map((r) => [r.gpu, r.error]),
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
  batch.items.forEach((item) => {
    const asked = list[item.index];
    const name = `${asked.cloud}/${asked.instance_type}`;
    if (!item.result) {
      failed.push([name, item.problem.errors?.[0]?.detail || item.problem.detail]);
      return;
    }
    const a = item.result;
    const cost = a.cost.ondemand?.total ?? null;
    rows.push({ label: name, precision: a.precision, samples_per_s: a.throughput.samples_per_s, hours: a.time.total_hours,
      cost, price: a.cost.ondemand ? a.cost.ondemand.price_per_hour / a.hardware.total_gpus : null,
      value: cost ? a.time.total_samples / cost : null, bottleneck: a.bottleneck, memory: a.memory.verdict,
      region: a.instance.region });
  });
  const first = batch.items.find((i) => i.result)?.result;
  return { title: `${first ? first.workload.name : 'The workload'} on each instance (on-demand)`,
    currency: first ? first.cost.currency : body.currency || 'USD', by: 'Instance', rows, failed };
}

function render(c, result) {
  const labels = c.rows.map((r) => r.label);
  const t = table([c.by, 'Precision', 'Samples/s', 'Time', `Cost (${c.currency})`, 'Per GPU-hour',
    `Samples per ${c.currency}`, 'Bottleneck', 'Memory'],
  c.rows.map((r) => [r.label + (r.region ? ` (${r.region})` : ''), r.precision, num(r.samples_per_s), hours(r.hours), money(r.cost),
    money(r.price), num(r.value), r.bottleneck, String(r.memory).replace(/_/g, ' ')]), c.title);
  t.id = 'compare-items';
  const [timeFig, timeCanvas] = chartBox('Time (hours)');
  const [costFig, costCanvas] = chartBox(`Cost (${c.currency})`);
  const [valueFig, valueCanvas] = chartBox(`Samples per ${c.currency}`);
  const charts = el('div', { class: 'charts three', id: 'compare-charts' }, timeFig, costFig, valueFig);
  result.append(el('div', { class: 'scroll' }, t), charts);
  if (c.failed.length) {
    const f = table([c.by, 'Why not'], c.failed, 'Not estimated');
    f.id = 'compare-failed';
    result.append(f);
  }
  bars(timeCanvas, labels, c.rows.map((r) => r.hours), { unit: 'hours' });
  bars(costCanvas, labels, c.rows.map((r) => r.cost), { unit: c.currency });
  const best = c.rows.reduce((b, r, i) => ((r.value ?? -1) > (c.rows[b]?.value ?? -1) ? i : b), 0);
  bars(valueCanvas, labels, c.rows.map((r) => r.value), { unit: `samples per ${c.currency}`, highlight: best });
}

export const compareView = formView({
  name: 'compare',
  form: '#compare-form',
  run,
  render,
  summary: (c) => `${c.rows.length} compared${c.failed.length ? `, ${c.failed.length} not estimated` : ''}.`,
});
