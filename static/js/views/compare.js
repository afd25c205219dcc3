// Compare: one workload across GPUs -> time, cost and throughput per currency unit as bars.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { bars } from '../charts.js';
import { el, hours, money, num, table } from '../format.js';
import { chartBox, formView } from './common.js';

function render(c, result) {
  const ok = c.items.filter((r) => !r.error);
  const failed = c.items.filter((r) => r.error);
  const labels = ok.map((r) => r.gpu);
  const t = table(['GPU', 'Precision', 'Samples/s', 'Time', `Cost (${c.currency})`, 'Per GPU-hour',
    `Samples per ${c.currency}`, 'Bottleneck', 'Memory'],
  ok.map((r) => [r.gpu, r.precision, num(r.samples_per_s), hours(r.hours), money(r.cost),
    money(r.price_per_gpu_hour), num(r.samples_per_currency_unit), r.bottleneck, r.memory_verdict.replace(/_/g, ' ')]),
  `${c.workload.name} on ${c.gpus_per_node} GPU(s) of each kind`);
  t.id = 'compare-items';
  const [timeFig, timeCanvas] = chartBox('Time (hours)');
  const [costFig, costCanvas] = chartBox(`Cost (${c.currency})`);
  const [valueFig, valueCanvas] = chartBox(`Samples per ${c.currency}`);
  const charts = el('div', { class: 'charts three', id: 'compare-charts' }, timeFig, costFig, valueFig);
  result.append(el('div', { class: 'scroll' }, t), charts);
  if (failed.length) {
    result.append(table(['GPU', 'Why not'], failed.map((r) => [r.gpu, r.error]), 'Not estimated'));
  }
  bars(timeCanvas, labels, ok.map((r) => r.hours), { unit: 'hours' });
  bars(costCanvas, labels, ok.map((r) => r.cost), { unit: c.currency });
  const best = ok.reduce((b, r, i) => ((r.samples_per_currency_unit ?? -1) > (ok[b]?.samples_per_currency_unit ?? -1) ? i : b), 0);
  bars(valueCanvas, labels, ok.map((r) => r.samples_per_currency_unit), { unit: `samples per ${c.currency}`, highlight: best });
}

export const compareView = formView({
  name: 'compare',
  form: '#compare-form',
  run: (form, signal) => api('/api/v1/compare', { method: 'POST', body: formToBody(form), signal }),
  render,
  summary: (c) => `${c.items.length} GPUs compared.`,
});
