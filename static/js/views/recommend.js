// Recommend: constraints and objective -> ranked options, a cost-vs-time scatter with the
// Pareto front and the top items, and how many options each reason rejected.
import { api } from '../api.js';
import { formToBody } from '../forms.js';
import { spreads, xy } from '../charts.js';
import { cards, durationAxis, el, hours, money, notes, scroller, table } from '../format.js';
import { verdictOf, verdictText } from '../feasibility.js';
import { chartBox, formView } from './common.js';
import { exportPanel } from '../export.js';

// Price kinds as the table names them: spot with an on-demand fallback is not plain spot.
const priceKinds = { ondemand: 'on-demand', spot: 'spot', spot_with_fallback: 'spot with fallback' };
export const priceKindName = (kind) => priceKinds[kind] || String(kind ?? '—').replace(/_/g, ' ');

// Price flags in words ("spot_above_ondemand" -> "spot price above on-demand").
const flagNames = { spot_above_ondemand: 'spot price above on-demand (price may be stale or wrong)',
  stale: 'price is stale' };
const flagName = (flag) => flagNames[flag] || String(flag).replace(/_/g, ' ');

// An item's notes for its row: its price flags and warnings, "; "-separated ("" when none).
// Serving's catalog search shows its items' notes the same way.
export function itemNotes(it) {
  const flags = Array.isArray(it.price_flags) ? it.price_flags.map(flagName) : [];
  const warnings = Array.isArray(it.warnings) ? it.warnings : [];
  return [...flags, ...warnings].join('; ');
}

// A ranked row: time with its P90, cost; an infeasible item (which a ranking should never
// hold) shows its verdict instead of time and cost.
function itemRow(it, c, exporter) {
  const v = verdictOf(it);
  const head = [String(it.rank), it.cloud, it.region, it.instance_type, `${it.total_gpus} × ${it.gpu}`,
    it.nodes > 1 ? `${it.nodes} instances` : '1 instance', priceKindName(it.price_kind), money(it.price_per_hour, c)];
  const figures = v.feasible ? [hours(it.hours), hours(it.p90_hours), money(it.cost, c)]
    : [{ text: verdictText(v), span: 3, class: 'verdict' }];
  const out = [...head, ...figures, it.why, itemNotes(it), v.feasible ? exportButton(it, exporter) : ''];
  if (!v.feasible) out.rowClass = 'infeasible';
  return out;
}

// The row's "Export" button: points the export box at this item (by its rank).
function exportButton(it, exporter) {
  const b = el('button', { type: 'button', class: 'small', text: 'Export',
    'aria-label': `Export item ${it.rank} as SkyPilot or Kubernetes` });
  b.addEventListener('click', () => exporter.show(it.rank, itemLabel(it)));
  return b;
}

const itemLabel = (it) => `#${it.rank}: ${it.instance_type} (${it.cloud} ${it.region}), ${priceKindName(it.price_kind)}`;

function render(r, result, form) {
  const c = r.currency;
  const first = r.items.find((it) => verdictOf(it).feasible);
  const exporter = exportPanel('recommendation', formToBody(form), { name: 'gpuplan-recommendation',
    item: first?.rank, label: first ? itemLabel(first) : '' });
  const confidence = r.deadline_confidence ? `, deadlines held to ${String(r.deadline_confidence).toUpperCase()}` : '';
  const ranked = table(['#', 'Cloud', 'Region', 'Instance type', 'GPUs', 'Instances', 'Price kind', 'Per hour',
    'Time', 'P90 time', 'Cost', 'Why', 'Notes', 'Plan'], r.items.map((it) => itemRow(it, c, exporter)),
  `Ranked by ${r.objective} (${r.feasible} feasible of ${r.considered} considered${confidence})`);
  ranked.id = 'recommend-items';
  cards(ranked, ['Cost', 'Time', 'P90 time'], 'Instance type');
  const time = durationAxis(r.items.map((it) => it.hours));
  const [fig, canvas] = chartBox('Cost against time: every ranked option, the Pareto front, and the top three');
  fig.id = 'recommend-scatter';
  const rejected = Object.entries(r.rejected || {}).filter(([, n]) => n > 0);
  const rejectTable = table(['Reason', 'Options'], rejected.map(([k, n]) => [k.replace(/_/g, ' '), String(n)]),
    'Rejected options by reason');
  rejectTable.id = 'recommend-rejected';
  result.append(scroller(ranked), ...(first ? [exporter.box] : []), notes(r), fig, rejectTable);
  if (r.items.length === 0) {
    result.prepend(el('p', { class: 'empty', text: 'Nothing feasible: see the reasons below.' }));
  }
  const plotted = (items) => items.filter((it) => verdictOf(it).feasible && Number.isFinite(it.hours) && Number.isFinite(it.cost));
  const point = (it) => ({ x: time.scale(it.hours), y: it.cost, label: `${it.instance_type} ${priceKindName(it.price_kind)}` });
  const front = plotted([...(r.pareto_front || [])]).sort((a, b) => a.hours - b.hours).map(point);
  const shown = [...plotted(r.items), ...plotted(r.pareto_front || [])];  // what the axes must hold
  xy(canvas, [
    { label: 'top three', points: plotted(r.items.slice(0, 3)).map(point), color: '#d9622b', radius: 7, pointStyle: 'rectRot' },
    { label: 'Pareto front', points: front, line: true, color: '#2a9d6e', dash: [6, 4] },
    { label: 'ranked options', points: plotted(r.items).map(point), color: '#2f6fd6' },
  ], { x: time.unit, y: `cost (${c})`, logX: spreads(shown.map((it) => it.hours)), logY: spreads(shown.map((it) => it.cost)) });
}

export const recommendView = formView({
  name: 'recommend',
  form: '#recommend-form',
  run: (form, signal) => api('/api/v1/recommendations', { method: 'POST', body: formToBody(form), signal }),
  render,
  summary: (r) => `${r.items.length} options ranked, ${r.feasible} feasible of ${r.considered}.`,
});
