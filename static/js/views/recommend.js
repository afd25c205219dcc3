// Recommend: constraints and objective -> ranked options, a cost-vs-time scatter with the
// Pareto front and the top items, and how many options each reason rejected.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { xy } from '../charts.js';
import { el, hours, money, table } from '../format.js';
import { chartBox, formView } from './common.js';

function render(r, result) {
  const c = r.currency;
  const rows = r.items.map((it) => [String(it.rank), it.cloud, it.region, it.instance_type,
    `${it.total_gpus} × ${it.gpu}`, it.nodes > 1 ? `${it.nodes} instances` : '1 instance',
    it.price_kind, money(it.price_per_hour, c), hours(it.hours), money(it.cost, c), it.why]);
  const ranked = table(['#', 'Cloud', 'Region', 'Instance type', 'GPUs', 'Instances', 'Price kind', 'Per hour',
    'Time', 'Cost', 'Why'], rows, `Ranked by ${r.objective} (${r.feasible} feasible of ${r.considered} considered)`);
  ranked.id = 'recommend-items';
  const [fig, canvas] = chartBox('Cost against time: every ranked option, the Pareto front, and the top three');
  fig.id = 'recommend-scatter';
  const rejected = Object.entries(r.rejected || {}).filter(([, n]) => n > 0);
  const rejectTable = table(['Reason', 'Options'], rejected.map(([k, n]) => [k.replace(/_/g, ' '), String(n)]),
    'Rejected options by reason');
  rejectTable.id = 'recommend-rejected';
  result.append(el('div', { class: 'scroll' }, ranked), fig, rejectTable);
  if (r.items.length === 0) {
    result.prepend(el('p', { class: 'empty', text: 'Nothing feasible: see the reasons below.' }));
  }
  const point = (it) => ({ x: it.hours, y: it.cost, label: `${it.instance_type} ${it.price_kind}` });
  const front = [...r.pareto_front].sort((a, b) => a.hours - b.hours).map(point);
  xy(canvas, [
    { label: 'top three', points: r.items.slice(0, 3).map(point), color: '#d9622b', radius: 7, pointStyle: 'rectRot' },
    { label: 'Pareto front', points: front, line: true, color: '#2a9d6e', dash: [6, 4] },
    { label: 'ranked options', points: r.items.map(point), color: '#2f6fd6' },
  ], { x: 'hours', y: `cost (${c})`, logX: false });
}

export const recommendView = formView({
  name: 'recommend',
  form: '#recommend-form',
  run: (form, signal) => api('/api/v1/recommendations', { method: 'POST', body: formToBody(form), signal }),
  render,
  summary: (r) => `${r.items.length} options ranked, ${r.feasible} feasible of ${r.considered}.`,
});
