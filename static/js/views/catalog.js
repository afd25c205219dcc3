// Catalog: the offers table (every filter and sort of /api/v1/instances, cursor paging, the
// price per GPU-hour of the chosen price kind), a GPU's specs, an instance type's prices in
// every region.
import { api, cached, Latest } from '../api.js';
import { appendRows, el, facts, money, num, table } from '../format.js';
import { formToParams } from '../forms.js';
import { formView } from './common.js';
import { ownershipPanel } from './ownership.js';

const link = (href, text) => el('a', { href, text });
const gpuLink = (id) => link(`#/gpu/${encodeURIComponent(id)}`, id);
const instanceLink = (cloud, type) =>
  link(`#/instance/${encodeURIComponent(cloud)}/${encodeURIComponent(type)}`, type);

function offerRows(items, spot) {
  return items.map((it) => [it.cloud, it.region, instanceLink(it.cloud, it.instance_type), gpuLink(it.gpu),
    String(it.gpu_count), num(it.gpu_memory_gb), it.vcpus === null ? '—' : String(it.vcpus), it.interconnect,
    money(it.price_ondemand_per_hour), money(it.price_spot_per_hour),
    money(spot ? it.price_spot_per_gpu_hour : it.price_per_gpu_hour), it.currency]);
}

const more = new Latest();

function render(page, result, form) {
  // The search this table shows: "More" pages through it, whatever the form says by now.
  const query = formToParams(form);
  const spot = query.get('price_kind') === 'spot';
  more.cancel();
  const headers = ['Cloud', 'Region', 'Instance type', 'GPU', 'GPUs', 'GB / GPU', 'vCPUs', 'Interconnect',
    'On-demand / h', 'Spot / h', spot ? 'Spot per GPU-hour' : 'On-demand per GPU-hour', 'Currency'];
  const t = table(headers, offerRows(page.items, spot));
  t.id = 'offers';
  const count = el('p', { class: 'count', text: '' });
  const button = el('button', { type: 'button', id: 'more', text: 'More offers' });
  const update = (p) => {
    count.textContent = `${t.tBodies[0].rows.length} of ${p.total} offers`;
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
      appendRows(t.tBodies[0], offerRows(next.items, spot));
      update(next);
    } catch (err) {
      count.textContent = `${err.problem?.title || 'Error'}: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  });
  update(page);
  result.append(count, el('div', { class: 'scroll' }, t), button);
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
  run: (form, signal) => api(`/api/v1/instances?${formToParams(form)}`, { signal }),
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
      el('div', { class: 'scroll' }, prices),
      el('p', {}, link(`#/spot?cloud=${encodeURIComponent(it.cloud)}&instance_type=${encodeURIComponent(it.instance_type)}`, 'Spot history'),
        ' · ', estimateLink({ _hardware: 'instance', 'hardware.cloud': it.cloud, 'hardware.instance_type': it.instance_type,
          'hardware.nodes': 1 }, 'Estimate a job on it')),
    ];
  },
});
