// Spot history: an instance type's spot price by zone over time, as lines.
import { api, cached, cachedAllPages } from '../api.js';
import { formToParams } from '../forms.js';
import { xy } from '../charts.js';
import { el, money, notes, table } from '../format.js';
import { chartBox, formView } from './common.js';

const day = (ms) => new Date(ms).toISOString().slice(0, 10);

async function run(form, signal) {
  const params = formToParams(form);
  params.set('limit', '10000');
  return api(`/api/v1/prices/spot-history?${params}`, { signal });
}

function render(h, result) {
  const byZone = new Map();
  for (const it of h.items) {
    const key = `${it.region} ${it.zone || ''}`.trim();
    if (!byZone.has(key)) byZone.set(key, []);
    byZone.get(key).push({ x: Date.parse(it.observed_at), y: it.price_per_hour });
  }
  const currency = h.items[0]?.currency || '';
  const [fig, canvas] = chartBox(`${h.instance_type} (${h.cloud}): spot price per hour by zone`);
  fig.id = 'spot-chart';
  // Room for the legend: one line of it per zone or two on a phone.
  fig.querySelector('.canvas-holder').style.height = `${18 + 1.6 * byZone.size}rem`;
  result.append(fig);
  result.append(notes(h));
  if (h.items.length === 0) {
    result.prepend(el('p', { class: 'empty', text: 'No spot observations for this instance type and filter.' }));
  }
  const latest = [...byZone.entries()].map(([zone, pts]) => {
    const last = pts[pts.length - 1];
    return [zone, String(pts.length), day(pts[0].x), day(last.x), money(last.y, currency)];
  });
  const t = table(['Region and zone', 'Observations', 'First', 'Last', 'Last price / h'], latest, 'Zones');
  t.id = 'spot-zones';
  result.append(el('div', { class: 'scroll' }, t));
  // Ticks name the day, or the day and hour when the series spans less than four days.
  const times = h.items.map((it) => Date.parse(it.observed_at));
  const short = times.length === 0 || Math.max(...times) - Math.min(...times) < 4 * 86400e3;
  const tick = short ? (v) => new Date(v).toISOString().slice(5, 16).replace('T', ' ') : (v) => day(v);
  xy(canvas, [...byZone.entries()].map(([zone, pts]) => ({ label: zone, points: pts, line: pts.length > 1 })),
    { x: short ? 'observed (UTC)' : 'observed', y: `price per hour (${currency})`, xTicks: tick, xPad: 86400e3 });
}

async function setup(form) {
  const cloud = form.elements.cloud;
  const region = form.elements.region;
  const types = form.querySelector('datalist');
  cloud.dataset.default = 'aws';
  const clouds = await cached('/api/v1/clouds');
  for (const c of clouds.items) {
    if (![...cloud.options].some((o) => o.value === c.id)) cloud.add(new Option(c.name, c.id));
  }
  if (!cloud.dataset.restored) cloud.value = cloud.dataset.default;
  const load = async () => {
    const c = encodeURIComponent(cloud.value);
    const [regions, offers] = await Promise.all([cached(`/api/v1/regions?cloud=${c}`),
      cachedAllPages(`/api/v1/instances?cloud=${c}&limit=500&price_kind=spot&sort=gpu_count`)]);
    const keep = region.value;
    region.replaceChildren(new Option('all', ''), ...regions.items.map((r) => new Option(r.id, r.id)));
    if ([...region.options].some((o) => o.value === keep)) region.value = keep;
    const names = [...new Set(offers.items.filter((o) => o.price_spot_per_hour !== null).map((o) => o.instance_type))];
    types.replaceChildren(...names.map((n) => new Option(n, n)));
  };
  for (const event of ['change', 'restore']) cloud.addEventListener(event, () => load().catch(() => {}));
  await load();
}

export const spotView = formView({
  name: 'spot',
  form: '#spot-form',
  setup: (form) => setup(form).catch(() => {}),
  run,
  render,
  summary: (h) => `${h.items.length} observations.`,
});
