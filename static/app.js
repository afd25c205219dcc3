// gpuplan dashboard: lists instance offers through the public /api/v1 endpoints only.
const form = document.getElementById('filters');
const tbody = document.querySelector('#instances tbody');
const statusLine = document.getElementById('status');
const moreButton = document.getElementById('more');
let nextCursor = null;
let currentQuery = '';

async function getJson(url) {
  const res = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) {
    const details = (body.errors || []).map((e) => e.detail).join('; ');
    throw new Error(details || body.detail || res.statusText);
  }
  return body;
}

function money(value) {
  return value === null || value === undefined ? '—' : Number(value).toFixed(4);
}

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

function addRows(items) {
  for (const it of items) {
    const tr = document.createElement('tr');
    [it.cloud, it.region, it.instance_type, it.gpu, it.gpu_count, it.gpu_memory_gb,
      it.vcpus ?? '—', it.interconnect, money(it.price_ondemand_per_hour),
      money(it.price_spot_per_hour), money(it.price_per_gpu_hour), it.currency]
      .forEach((v) => tr.appendChild(cell(String(v))));
    tbody.appendChild(tr);
  }
}

function queryFromForm() {
  const params = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (value !== '') params.set(name, value);
  }
  params.set('limit', '100');
  return params.toString();
}

async function load(append) {
  const url = '/api/v1/instances?' + currentQuery + (append && nextCursor ? '&cursor=' + nextCursor : '');
  statusLine.textContent = 'Loading…';
  try {
    const body = await getJson(url);
    if (!append) tbody.replaceChildren();
    addRows(body.items);
    nextCursor = body.next_cursor;
    moreButton.hidden = !nextCursor;
    statusLine.textContent = `${tbody.children.length} of ${body.total} offers`;
  } catch (err) {
    statusLine.textContent = 'Error: ' + err.message;
  }
}

async function loadChoices() {
  const clouds = await getJson('/api/v1/clouds');
  const cloudSelect = document.getElementById('cloud');
  for (const c of clouds.items) cloudSelect.add(new Option(c.name, c.id));
  cloudSelect.addEventListener('change', loadRegions);
}

async function loadRegions() {
  const cloud = document.getElementById('cloud').value;
  const regionSelect = document.getElementById('region');
  regionSelect.replaceChildren(new Option('any', ''));
  if (!cloud) return;
  const regions = await getJson('/api/v1/regions?cloud=' + encodeURIComponent(cloud));
  for (const r of regions.items) regionSelect.add(new Option(`${r.id} (${r.display_name})`, r.id));
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  currentQuery = queryFromForm();
  load(false);
});
moreButton.addEventListener('click', () => load(true));

loadChoices().catch((err) => { statusLine.textContent = 'Error: ' + err.message; });
currentQuery = queryFromForm();
load(false);
