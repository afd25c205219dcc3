// Catalog: the offers table (every filter and sort of /api/v1/instances, cursor paging, the
// price per GPU-hour of the chosen price kind), a GPU's specs, an instance type's prices in
// every region.
import { api, cached, Latest } from '../api.js';
import { appendRows, cards, el, facts, money, num, scroller, table } from '../format.js';
import { formToParams } from '../forms.js';
import { formView } from './common.js';
import { navigate } from '../router.js';
import { ownershipPanel } from './ownership.js';

const link = (href, text) => el('a', { href, text });
const gpuLink = (id) => link(`#/gpu/${encodeURIComponent(id)}`, id);
const instanceLink = (cloud, type) =>
  link(`#/instance/${encodeURIComponent(cloud)}/${encodeURIComponent(type)}`, type);

// The hours a price per hour is multiplied by for the period the table shows (`_period`,
// UI-only): a month is 730 h (8,760 / 12), a year 8,760 h.
const periods = { hour: [1, 'h'], month: [730, 'month'], year: [8760, 'year'] };

// The offers table's columns: key, header (given the price kind and period), the cell of an
// offer, and what a click on the header sorts by (the API's sort and, for the two price
// columns, its price kind). Sorting and filtering are the API's (GET /api/v1/instances), so
// "More offers" pages the same order and a price is compared in one currency.
function offerColumns(spot, [per, unit]) {
  const price = (v) => money(v === null || v === undefined ? v : v * per);
  return [
    { key: 'cloud', label: 'Cloud', cell: (it) => it.cloud, filter: 'cloud' },
    { key: 'region', label: 'Region', cell: (it) => it.region, filter: 'region' },
    { key: 'instance_type', label: 'Instance type', cell: (it) => instanceLink(it.cloud, it.instance_type), filter: 'instance_type' },
    { key: 'gpu', label: 'GPU', cell: (it) => gpuLink(it.gpu), filter: 'gpu' },
    { key: 'gpu_count', label: 'GPUs', cell: (it) => String(it.gpu_count), sort: { sort: 'gpu_count' }, filter: 'min_gpu_count' },
    { key: 'gpu_memory_gb', label: 'GB / GPU', cell: (it) => num(it.gpu_memory_gb), sort: { sort: 'gpu_memory' }, filter: 'min_gpu_memory_gb' },
    { key: 'vcpus', label: 'vCPUs', cell: (it) => (it.vcpus === null ? '—' : String(it.vcpus)), filter: 'min_vcpus' },
    { key: 'interconnect', label: 'Interconnect', cell: (it) => it.interconnect, filter: 'interconnect' },
    { key: 'ondemand', label: `On-demand / ${unit}`, cell: (it) => price(it.price_ondemand_per_hour),
      sort: { sort: 'price', price_kind: 'ondemand' }, filter: spot ? null : 'max_price_per_hour' },
    { key: 'spot', label: `Spot / ${unit}`, cell: (it) => price(it.price_spot_per_hour),
      sort: { sort: 'price', price_kind: 'spot' }, filter: spot ? 'max_price_per_hour' : null },
    { key: 'per_gpu', label: `${spot ? 'Spot' : 'On-demand'} per GPU-${unit === 'h' ? 'hour' : unit}`,
      cell: (it) => price(spot ? it.price_spot_per_gpu_hour : it.price_per_gpu_hour), sort: { sort: 'price_per_gpu' } },
    { key: 'currency', label: 'Currency', cell: (it) => it.currency },
  ];
}

// Columns the reader hid (the column chooser), kept in localStorage across visits.
const hiddenKey = 'gpuplan.catalog.hiddenColumns';
const hiddenColumns = () => new Set(JSON.parse(localStorage.getItem(hiddenKey) || '[]'));

// Hides the chosen columns' cells (header, filter row and body) by their data-col.
function applyColumns(t) {
  const hidden = hiddenColumns();
  for (const cell of t.querySelectorAll('[data-col]')) cell.hidden = hidden.has(cell.dataset.col);
}

// "Columns": a checkbox per column; unticking hides it in every table drawn from now on.
function columnChooser(columns, t) {
  const box = el('details', { class: 'columns' }, el('summary', { text: 'Columns' }));
  const hidden = hiddenColumns();
  for (const c of columns) {
    const input = el('input', { type: 'checkbox', value: c.key });
    input.checked = !hidden.has(c.key);
    input.addEventListener('change', () => {
      const now = hiddenColumns();
      if (input.checked) now.delete(c.key); else now.add(c.key);
      localStorage.setItem(hiddenKey, JSON.stringify([...now]));
      applyColumns(t);
    });
    box.append(el('label', { class: 'inline' }, input, ` ${c.label}`));
  }
  return box;
}

// The header cell of a column: a button that sorts by it (again: the other way round) when
// the API can sort by it, with aria-sort on the column sorted now.
function headerCell(c, form, query) {
  const th = el('th', { scope: 'col', 'data-col': c.key });
  if (!c.sort) {
    th.textContent = c.label;
    return th;
  }
  const sortNow = query.get('sort') || 'price';
  const kindNow = query.get('price_kind') || 'ondemand';
  const orderNow = query.get('order') || 'asc';
  const active = sortNow === c.sort.sort && (!c.sort.price_kind || c.sort.price_kind === kindNow);
  if (active) th.setAttribute('aria-sort', orderNow === 'desc' ? 'descending' : 'ascending');
  const button = el('button', { type: 'button', class: 'sort', text: c.label });
  button.append(el('span', { 'aria-hidden': 'true', text: active ? (orderNow === 'desc' ? ' ▼' : ' ▲') : ' ↕' }));
  button.addEventListener('click', () => {
    form.elements.sort.value = c.sort.sort;
    if (c.sort.price_kind) form.elements.price_kind.value = c.sort.price_kind;
    form.elements.order.value = active && orderNow === 'asc' ? 'desc' : 'asc';
    form.requestSubmit();
  });
  th.append(button);
  return th;
}

// The filter row: for each column the API filters on, a control that shows the form's field
// and sets it (the form stays the one source of the search; a change searches again).
function filterCell(c, form) {
  const td = el('td', { 'data-col': c.key });
  const source = c.filter && form.elements[c.filter];
  if (!source) return td;
  const label = source.closest('label').firstChild.textContent.trim();
  let control;
  if (source.tagName === 'SELECT') {
    control = el('select');
    for (const o of source.options) control.add(new Option(o.text, o.value));
  } else {
    control = el('input', { placeholder: label, size: 6,
      ...(source.type === 'number' ? { type: 'number', min: source.min || '0', step: source.step || '1' } : {}) });
  }
  control.value = source.value;
  control.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') control.dispatchEvent(new Event('change'));
  });
  control.addEventListener('change', () => {
    if (source.value === control.value) return;  // Enter, then the browser's own change
    source.value = control.value;
    source.dispatchEvent(new Event('change', { bubbles: true }));  // a list reloads what depends on it
    if (source.tagName !== 'SELECT') form.requestSubmit();  // a select's change already searches
  });
  td.append(el('label', {}, el('span', { class: 'sr-only', text: `Filter: ${label}` }), control));
  return td;
}

// The offers as rows: the columns' cells and a "compare" checkbox per offer.
function offerRows(items, columns, selected, onSelect) {
  return items.map((it) => {
    const id = `${it.cloud}/${it.instance_type}`;
    const box = el('input', { type: 'checkbox' });
    box.checked = selected.has(id);
    box.addEventListener('change', () => onSelect(id, box.checked));
    return [...columns.map((c) => c.cell(it)),
      el('label', {}, box, el('span', { class: 'sr-only', text: `Select ${id} (${it.region}) to compare` }))];
  });
}

// The search as the API takes it: the form's state without its UI-only fields (`_period`).
export function offerQuery(form) {
  const params = formToParams(form);
  for (const name of [...params.keys()]) if (name.startsWith('_')) params.delete(name);
  return params;
}

const more = new Latest();

function render(page, result, form) {
  // The search this table shows: "More" pages through it, whatever the form says by now.
  const query = offerQuery(form);
  const spot = query.get('price_kind') === 'spot';
  const period = periods[form.elements._period.value] || periods.hour;
  more.cancel();
  const columns = offerColumns(spot, period);
  const t = el('table', { id: 'offers', class: 'cards' });
  t.createCaption().textContent = `Offers, prices per ${period[1] === 'h' ? 'hour' : period[1]}` +
    (query.get('currency') ? ` in ${query.get('currency')}` : ' in each offer\'s currency');
  const head = t.createTHead();
  head.insertRow().append(...columns.map((c) => headerCell(c, form, query)), el('th', { scope: 'col', text: 'Compare' }));
  const filters = head.insertRow();
  filters.className = 'filters-row';
  filters.append(...columns.map((c) => filterCell(c, form)), el('td'));
  const selected = new Set();
  const compare = el('button', { type: 'button', id: 'compare-selected', text: 'Compare selected (0)', disabled: '' });
  const onSelect = (id, on) => {
    if (on) selected.add(id); else selected.delete(id);
    compare.textContent = `Compare selected (${selected.size})`;
    compare.disabled = selected.size < 2;
  };
  compare.addEventListener('click', () => navigate('compare', new URLSearchParams({ _compare: 'instances',
    _instances: [...selected].join(', '), ...(query.get('currency') ? { currency: query.get('currency') } : {}) })));
  const body = t.createTBody();
  const add = (items) => {
    appendRows(body, offerRows(items, columns, selected, onSelect));
    for (const tr of body.rows) [...tr.cells].forEach((td, i) => { if (i < columns.length) td.dataset.col = columns[i].key; });
    cards(t, columns.filter((c) => ['ondemand', 'spot', 'per_gpu'].includes(c.key)).map((c) => c.label), 'Instance type');
    applyColumns(t);
  };
  add(page.items);
  const count = el('p', { class: 'count', text: '' });
  const button = el('button', { type: 'button', id: 'more', text: 'More offers' });
  const update = (p) => {
    count.textContent = `${body.rows.length} of ${p.total} offers`;
    button.hidden = !p.next_cursor;
    button.dataset.cursor = p.next_cursor || '';
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const next = await more.run((signal) => {
        const params = new URLSearchParams(query);
        params.set('cursor', button.dataset.cursor);
        return api(`/api/v1/instances?${params}`, { signal });
      });
      if (!next) return;
      add(next.items);
      update(next);
    } catch (err) {
      count.textContent = `${err.problem?.title || 'Error'}: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  });
  update(page);
  const csv = el('a', { id: 'offers-csv', class: 'button', href: `/api/v1/instances?${exportQuery(query)}`,
    download: 'gpuplan-offers.csv', text: 'Download CSV' });
  result.append(el('div', { class: 'table-tools' }, count, columnChooser(columns, t), compare, csv),
    scroller(t, 'Offers'), button);
}

// The CSV of the search shown, from the API (`format=csv`): the same filters, sort and
// currency, every matching offer rather than one page.
function exportQuery(query) {
  const params = new URLSearchParams(query);
  params.delete('limit');
  params.delete('cursor');
  params.set('format', 'csv');
  return params;
}

async function setup(form) {
  const cloud = form.elements.cloud;
  const region = form.elements.region;
  const loadRegions = async () => {
    const keep = region.value;
    region.replaceChildren(new Option('any', ''));
    if (!cloud.value) return;
    const regions = await cached(`/api/v1/regions?cloud=${encodeURIComponent(cloud.value)}`);
    for (const r of regions.items) region.add(new Option(`${r.id} (${r.display_name})`, r.id));
    if ([...region.options].some((o) => o.value === keep)) region.value = keep;
  };
  for (const event of ['change', 'restore']) cloud.addEventListener(event, () => loadRegions().catch(() => {}));
  const clouds = await cached('/api/v1/clouds');
  for (const c of clouds.items) {
    if (![...cloud.options].some((o) => o.value === c.id)) cloud.add(new Option(c.name, c.id));
  }
  await loadRegions();
}

export const catalogView = formView({
  name: 'catalog',
  form: '#catalog-form',
  always: true,
  setup: (form) => {
    setup(form).catch(() => {});
    // Choosing in a list (price kind, currency, sort...) reloads the table at once. (The
    // form's own restore event targets the form, not a list, so it does not loop.)
    form.addEventListener('change', (event) => {
      if (event.target.tagName === 'SELECT') form.requestSubmit();
    });
  },
  run: (form, signal) => api(`/api/v1/instances?${offerQuery(form)}`, { signal }),
  render,
  summary: () => '',
});

// A page for one catalog item at #/<view>/<args>: `path(args)` is its API path, `title(args,
// answer?)` its heading (and the page's title), `render(answer)` its content (Nodes).
function detailView({ path, title, render: draw }) {
  const latest = new Latest();
  return {
    init() {},
    async show(section, _params, args) {
      const status = section.querySelector('.status');
      const result = section.querySelector('.result');
      const heading = section.querySelector('h2');
      const name = (answer) => {
        heading.textContent = title(args, answer);
        document.title = `${heading.textContent} — gpuplan`;
      };
      name();
      status.textContent = 'Loading…';
      section.setAttribute('aria-busy', 'true');
      result.classList.add('stale');
      try {
        const answer = await latest.run((signal) => api(path(args), { signal }));
        if (!answer) return;  // superseded
        name(answer);
        result.replaceChildren(...draw(answer));
        status.textContent = '';
      } catch (err) {
        result.replaceChildren();
        status.textContent = `${err.problem?.title || 'Error'}: ${err.message}`;
      } finally {
        if (!latest.controller) {
          section.removeAttribute('aria-busy');
          result.classList.remove('stale');
        }
      }
    },
  };
}

// An estimate of BERT-large on `hardware` (URL parameters of the estimate view).
const estimateLink = (hardware, text) => link(`#/estimate?_workload=preset&workload=bert-large&_dataset=samples` +
  `&dataset.samples=10000000&dataset.epochs=1&global_batch_size=256&${new URLSearchParams(hardware)}`, text);

// GPU detail: its specs, launch price, and whether owning it pays off against renting.
export const gpuView = detailView({
  path: ([id = '']) => `/api/v1/gpus/${encodeURIComponent(id)}`,
  title: ([id = ''], g) => `GPU ${g ? g.id : id}`,
  render: (g) => {
    const peaks = Object.entries(g.peak_tflops).filter(([, v]) => v !== null)
      .map(([k, v]) => [k === 'int8_tops' ? 'int8 (TOPS)' : `${k} (TFLOPS)`, num(v)]);
    return [
      facts([['Name', g.name], ['Vendor', g.vendor], ['Architecture', g.architecture ?? '—'],
        ['Released', g.release_year ?? '—'], ['Memory', `${num(g.memory_gb)} GB ${g.memory_type ?? ''}`],
        ['Memory bandwidth', `${num(g.memory_bw_gbps)} GB/s peak` +
          (g.achievable_bw_gbps ? `, ${num(g.achievable_bw_gbps)} GB/s measured` : '')],
        ['SMs', g.sm_count ?? '—'], ['Clock', g.base_clock_mhz ? `${g.base_clock_mhz} base, ${g.boost_clock_mhz ?? '—'} boost MHz`
          : g.boost_clock_mhz ? `${g.boost_clock_mhz} MHz boost` : '—'],
        ['L2 cache', g.l2_cache_mb ? `${num(g.l2_cache_mb)} MB` : '—'],
        ['NVLink', g.nvlink_bw_gbps ? `${num(g.nvlink_bw_gbps)} GB/s` : 'none'],
        ['PCIe', g.pcie_gen ? `gen ${g.pcie_gen}` : '—'], ['TDP', g.tdp_w ? `${g.tdp_w} W` : '—'],
        ['Form factor', g.form_factor ?? '—'],
        ['Launch price', g.launch_price_usd ? `${money(g.launch_price_usd)} USD` : '—']]),
      table(['Precision', 'Peak (dense)'], peaks, 'Peak rates'),
      el('p', { class: 'source', text: `Source: ${g.source}` }),
      el('p', {}, link(`#/catalog?gpu=${encodeURIComponent(g.id)}`, `Offers with ${g.id}`), ' · ',
        estimateLink({ _hardware: 'gpu', 'hardware.gpu': g.id, 'hardware.gpus_per_node': 1, 'hardware.nodes': 1 },
          `Estimate a job on ${g.id}`)),
      ownershipPanel(g),
    ];
  },
});

// A region's spot interruption band (AWS Spot Instance Advisor) and the hourly rate it gives.
function interruptionText(band) {
  if (!band) return '—';
  return `${band.band} per month (${num(band.rate_per_hour, 2)}/node-h, data of ${String(band.observed_at).slice(0, 10)})`;
}

// Instance detail: specs and its prices in every region.
export const instanceView = detailView({
  path: ([cloud = '', type = '']) => `/api/v1/instances/${encodeURIComponent(cloud)}/${encodeURIComponent(type)}`,
  title: ([cloud = '', type = '']) => `${type} (${cloud})`,
  render: (it) => {
    const prices = table(['Region', 'On-demand / h', 'Spot / h', 'Spot zone', 'Spot interruptions', 'Per GPU-hour',
      'Spot per GPU-hour', 'Currency', 'Observed'],
      it.regions.map((r) => [r.region, money(r.price_ondemand_per_hour), money(r.price_spot_per_hour), r.spot_zone ?? '—',
        interruptionText(r.spot_interruption), money(r.price_per_gpu_hour), money(r.price_spot_per_gpu_hour), r.currency,
        r.stale ? `${r.observed_at} (stale: over ${it.stale_after_days} days)` : r.observed_at]),
      'Prices in every region (spot interruptions: the AWS Spot Instance Advisor band of the region)');
    prices.id = 'instance-prices';
    return [
      facts([['GPU', gpuLink(it.gpu)], ['GPUs', String(it.gpu_count)], ['GPU memory', `${num(it.gpu_memory_gb)} GB each`],
        ['vCPUs', it.vcpus ?? '—'], ['Memory', it.memory_gib ? `${num(it.memory_gib, 4)} GiB` : '—'],
        ['Interconnect', `${it.interconnect}${it.interconnect_bw_gbps ? ` (${num(it.interconnect_bw_gbps)} GB/s)` : ''}`],
        ['Network', it.network_gbps ? `${num(it.network_gbps)} Gbit/s` : '—'], ['Source', it.source ?? '—']]),
      scroller(prices),
      el('p', {}, link(`#/spot?cloud=${encodeURIComponent(it.cloud)}&instance_type=${encodeURIComponent(it.instance_type)}`, 'Spot history'),
        ' · ', estimateLink({ _hardware: 'instance', 'hardware.cloud': it.cloud, 'hardware.instance_type': it.instance_type,
          'hardware.nodes': 1 }, 'Estimate a job on it')),
    ];
  },
});
