// The dashboard in headless Debian Chromium (playwright-core), against the real server with
// its seeded database: every view loads without console errors, the catalog's filters and
// sorting change the table, each planning form gives its numbers and charts, a bad input
// shows the problem beside its field, a shared URL restores the form, a superseded request
// is cancelled, and every view fits a laptop and a phone. Screenshots of every view at both
// widths go to $SCREENSHOT_DIR (default build/screenshots).
//
// Run: node --test dashboard.test.mjs (tests/browser/run.sh, from ctest). Needs
// GPUPLAN_BINARY (the built server) and /usr/bin/chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { root, startServer } from '../support/server.mjs';

const shots = process.env.SCREENSHOT_DIR || join(root, 'build/screenshots');
const laptop = { width: 1366, height: 768 };
const phone = { width: 375, height: 812 };

let server;
let base;
let browser;

before(async () => {
  mkdirSync(shots, { recursive: true });
  server = await startServer();
  base = server.base;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

// A page at `hash` with its console errors and uncaught exceptions collected. Responses the
// test provokes on purpose (a 422) are listed in `expected` as status codes.
async function open(hash, { viewport = laptop, expected = [] } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const status = m.text().match(/status of (\d{3})/);
    if (status && expected.includes(Number(status[1]))) return;
    errors.push(`console: ${m.text()}`);
  });
  await page.goto(`${base}/${hash}`);
  return { page, errors, close: () => context.close() };
}

const visible = (page, selector) => page.locator(`section:not([hidden]) ${selector}`);
const statusOf = (page) => visible(page, '.status').textContent();

async function waitForStatus(page, pattern) {
  await page.waitForFunction((p) => new RegExp(p).test(
    document.querySelector('section:not([hidden]) .status')?.textContent || ''), pattern.source);
}

// The data of the Chart.js chart drawn in `selector`'s canvas.
function chartData(page, selector) {
  return page.evaluate((sel) => {
    const chart = Chart.getChart(document.querySelector(`${sel} canvas`));
    return chart ? { type: chart.config.type, labels: chart.data.labels,
      datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data })) } : null;
  }, selector);
}

// A value as the page's own format.js shows it (format(page, 'hours', 6.5) -> "6.5 h").
function format(page, fn, ...args) {
  return page.evaluate(([f, a]) => import('/js/format.js').then((m) => m[f](...a)), [fn, args]);
}

// Hours as the duration chart's unit says (its dataset label: minutes, hours or days).
function inUnit(unit, h) {
  const per = { minutes: 1 / 60, hours: 1, days: 24 }[unit];
  assert.ok(per, `a duration unit: ${unit}`);
  return h === null || h === undefined ? null : h / per;
}

// Waits until `form`'s preset list (filled from /api/v1/workloads) holds `id`.
function presetsLoaded(page, form, id) {
  return page.locator(`#${form}-form select[name=workload] option[value="${id}"]`).waitFor({ state: 'attached' });
}

async function shot(page, name, fullPage = true) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage });
}

const estimateHash = '#/estimate?_workload=preset&workload=bert-large&_dataset=samples' +
  '&dataset.samples=10000000&dataset.epochs=3&global_batch_size=256&precision=auto' +
  '&_hardware=instance&hardware.cloud=aws&hardware.instance_type=p4d.24xlarge&hardware.nodes=1' +
  '&pricing.kind=both&currency=USD';

async function apiJson(path, body) {
  const res = await fetch(`${base}${path}`, body ? {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  } : {});
  return res.json();
}

test('catalog: filters, sorting, paging, currencies and the price kind change the table', async () => {
  const { page, errors, close } = await open('#/catalog');
  const rows = page.locator('#offers tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 50);
  const count = () => page.locator('section:not([hidden]) .count').textContent();
  assert.match(await count(), /^50 of \d+ offers$/);

  // The currency list comes from /api/v1/fx-rates, not a fixed list.
  const rates = await apiJson('/api/v1/fx-rates');
  const options = await page.locator('#c-currency option').evaluateAll((os) => os.map((o) => o.value));
  for (const r of rates.items) assert.ok(options.includes(r.currency), `${r.currency} offered`);

  // Cursor paging appends the next page.
  await page.click('#more');
  await page.waitForFunction(() => document.querySelectorAll('#offers tbody tr').length === 100);

  // A filter: only H100 offers of AWS.
  await page.selectOption('#c-cloud', 'aws');
  await page.fill('#c-gpu', 'H100');
  await page.click('#catalog-form button[type=submit]');
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody tr')].every(
    (tr) => tr.cells[0].textContent === 'aws' && tr.cells[3].textContent.startsWith('H100')));
  assert.ok(await rows.count() > 0);
  assert.match(page.url(), /cloud=aws/);

  // Sorting by GPU count, descending: the first row has the most GPUs.
  await page.selectOption('#c-sort', 'gpu_count');
  await page.selectOption('#c-order', 'desc');
  await page.waitForFunction(() => /sort=gpu_count/.test(location.hash) && /order=desc/.test(location.hash));
  await page.waitForFunction(() => {
    const n = [...document.querySelectorAll('#offers tbody tr')].map((tr) => Number(tr.cells[4].textContent));
    return n.length > 1 && n.every((v, i) => i === 0 || n[i - 1] >= v);
  });

  // Spot: the per-GPU column follows the price kind (spot price / GPUs).
  await page.selectOption('#c-kind', 'spot');
  await page.waitForFunction(() => document.querySelector('#offers thead').textContent.includes('Spot per GPU-hour'));
  const offers = await apiJson('/api/v1/instances?cloud=aws&gpu=H100&sort=gpu_count&order=desc&price_kind=spot&limit=50');
  const first = offers.items[0];
  const cells = await page.locator('#offers tbody tr').first().locator('td').allTextContents();
  assert.equal(cells[2], first.instance_type);
  assert.equal(Number(cells[10].replace(/,/g, '')).toFixed(2), first.price_spot_per_gpu_hour.toFixed(2));

  // Currency conversion comes from the API.
  await page.selectOption('#c-currency', 'EUR');
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody tr')].every((tr) => tr.cells[11].textContent === 'EUR'));
  assert.deepEqual(errors, []);
  await close();
});

test('GPU and instance detail views show specs and prices in every region', async () => {
  const { page, errors, close } = await open('#/catalog?cloud=aws&gpu=A100');
  await page.locator('#offers tbody tr').first().waitFor();
  const gpuId = await page.locator('#offers tbody tr td:nth-child(4) a').first().textContent();
  await page.locator('#offers tbody tr td:nth-child(4) a').first().click();
  await page.locator('#view-gpu dl.facts').waitFor();
  assert.equal(await page.locator('#gpu-title').textContent(), `GPU ${gpuId}`);
  const spec = await apiJson(`/api/v1/gpus/${encodeURIComponent(gpuId)}`);
  const text = await page.locator('#view-gpu .result').textContent();
  assert.ok(text.includes(`${spec.memory_gb} GB`), 'memory shown');
  assert.ok(text.includes(String(spec.peak_tflops.bf16)), 'bf16 peak shown');

  await page.goto(`${base}/#/instance/aws/p4d.24xlarge`);
  await page.locator('#instance-prices tbody tr').first().waitFor();
  const detail = await apiJson('/api/v1/instances/aws/p4d.24xlarge');
  assert.equal(await page.locator('#instance-prices tbody tr').count(), detail.regions.length);
  const regions = await page.locator('#instance-prices tbody tr td:first-child').allTextContents();
  assert.deepEqual(regions, detail.regions.map((r) => r.region));
  // Each region's Spot Instance Advisor band, where the catalog has one (issue 27).
  const bands = await page.locator('#instance-prices tbody tr td:nth-child(5)').allTextContents();
  const banded = detail.regions.filter((r) => r.spot_interruption);
  assert.ok(banded.length > 0, 'p4d.24xlarge has a band in some region');
  detail.regions.forEach((r, i) => {
    if (r.spot_interruption) assert.ok(bands[i].startsWith(`${r.spot_interruption.band} per month`), bands[i]);
    else assert.equal(bands[i], '—');
  });
  assert.deepEqual(errors, []);
  await close();
});

test('own or rent: the RTX 4090 panel shows the API\'s owned cost and break-even months; errors beside fields', async () => {
  for (const [size, viewport] of [['laptop', laptop], ['phone', phone]]) {
    const { page, errors, close } = await open('#/gpu/RTX-4090', { viewport, expected: [422] });
    const form = page.locator('#ownership-form');
    await form.waitFor();
    // Prefilled from the catalog's launch price.
    assert.equal(await form.locator('input[name=purchase_price]').inputValue(), '1599');
    await form.locator('select[name="training.workload"] option[value="resnet-50"]').waitFor({ state: 'attached' });
    await form.locator('input[name=electricity_price_per_kwh]').fill('0.2');
    await form.locator('input[name=utilisation]').fill('0.5');
    await form.locator('input[name=years]').fill('4');
    await form.locator('select[name="training.workload"]').selectOption('resnet-50');
    await form.locator('button[type=submit]').click();
    await page.locator('#ownership-comparisons tbody tr').first().waitFor();
    const answer = await apiJson('/api/v1/estimates/ownership', { gpu: 'RTX-4090', purchase_price: 1599, gpus: 1,
      electricity_price_per_kwh: 0.2, utilisation: 0.5, years: 4,
      training: { workload: 'resnet-50', dataset: { samples: 1281167 }, global_batch_size: 256 } });
    const format = (fn, ...args) => page.evaluate(([f, a]) => import('/js/format.js').then((m) => m[f](...a)), [fn, args]);
    const summary = await page.locator('#ownership-summary').textContent();
    assert.ok(summary.includes(await format('money', answer.cost_per_gpu_hour, 'USD')), `owned cost per GPU-hour in ${summary}`);
    assert.ok(summary.includes(await format('money', answer.per_month.power, 'USD')), 'power a month');
    const rows = await page.locator('#ownership-comparisons tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
    assert.equal(rows.length, answer.comparisons.length);
    answer.comparisons.forEach((c, i) => {
      assert.equal(rows[i][5], !c.found ? '—' : c.break_even_months === null ? 'never' : rows[i][5]);
      if (c.found) assert.ok(rows[i][1].includes(c.instance_type), `row ${i} names ${c.instance_type}`);
    });
    // The same-work on-demand row: the cheapest option as fast, with its break-even months.
    const work = answer.comparisons[2];
    assert.ok(work.found && work.break_even_months > 0, JSON.stringify(work));
    assert.equal(rows[2][5], await format('num', work.break_even_months, 3));
    assert.equal(rows[2][3], await format('money', work.rent_per_month));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the panel at ${size} is ${overflow}px wider than the screen`);
    await shot(page, `ownership-${size}`);

    // An impossible input: the problem beside its field.
    await form.locator('input[name=utilisation]').fill('2');
    await form.locator('button[type=submit]').click();
    const field = form.locator('input[name=utilisation]');
    await page.waitForFunction(() => document.querySelector('#ownership-form input[name=utilisation]').getAttribute('aria-invalid') === 'true');
    assert.match(await page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent(), /utilisation/);
    assert.match(await form.locator('.form-error').textContent(), /^Unprocessable Content: /);
    assert.equal(await page.locator('#ownership-comparisons').count(), 0);
    assert.deepEqual(errors, []);
    await close();
  }
  // A GPU without a launch price: the purchase price is empty and asked for.
  const { page, errors, close } = await open('#/gpu/H100-80GB-SXM5', { expected: [422] });
  const form = page.locator('#ownership-form');
  await form.waitFor();
  assert.equal(await form.locator('input[name=purchase_price]').inputValue(), '');
  await form.locator('button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('#ownership-form input[name=purchase_price]').getAttribute('aria-invalid') === 'true');
  assert.deepEqual(errors, []);
  await close();
});

test('estimate: time with its range, costs, step breakdown and memory charts', async () => {
  const { page, errors, close } = await open(estimateHash);
  await waitForStatus(page, /^Estimated/);
  const body = {
    workload: 'bert-large', dataset: { samples: 10000000, epochs: 3 }, global_batch_size: 256,
    precision: 'auto',
    hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD',
  };
  const a = await apiJson('/api/v1/estimates/training', body);
  const facts = await visible(page, 'dl.facts').textContent();
  assert.ok(facts.includes(`Total time${await format(page, 'hours', a.time.total_hours)}`), `total time in ${facts}`);
  const cost = await page.locator('#estimate-cost').textContent();
  assert.ok(cost.includes(a.cost.ondemand.total.toFixed(2)), 'on-demand total shown');
  assert.ok(cost.includes(a.cost.spot.expected_total.toFixed(2)), 'spot expected total shown');
  const step = await chartData(page, '#estimate-breakdown');
  assert.equal(step.type, 'bar');
  // Step terms in the one unit the chart's axis names (ms for a step under a second).
  const perUnit = { ms: 1e-3, seconds: 1, minutes: 60 }[step.datasets[0].label.replace(/ per step$/, '')];
  assert.ok(perUnit, `a step-time unit: ${step.datasets[0].label}`);
  const terms = [a.breakdown.compute_s, a.breakdown.memory_s, a.breakdown.communication_s,
    a.breakdown.pipeline_bubble_s, a.breakdown.optimizer_s, a.breakdown.input_s, a.breakdown.overhead_s];
  step.datasets[0].data.forEach((v, i) => assert.ok(Math.abs(v - terms[i] / perUnit) <= 1e-9 * Math.max(1, v), `term ${i}`));
  assert.ok((await page.locator('#estimate-breakdown figcaption').textContent()).includes(`bottleneck: ${a.bottleneck}`));
  const memory = await chartData(page, '#estimate-memory');
  assert.deepEqual(memory.datasets.map((d) => d.label), ['weights', 'gradients', 'optimizer', 'activations', 'overhead', 'free']);
  assert.ok((await page.locator('#estimate-memory figcaption').textContent()).includes(`largest micro-batch ${a.memory.max_micro_batch}`));
  assert.ok(await visible(page, '.assumptions li').count() >= a.assumptions.length);
  await shot(page, 'estimate-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('estimate: the folded layout and recipe fields are sent only when set, as the API takes them; the layout shown is the answer\'s', async () => {
  const hash = '#/estimate?_workload=preset&workload=llama-2-7b&_dataset=tokens&dataset.tokens=1000000000' +
    '&global_batch_size=64&precision=fp8&framework=optimized&_hardware=gpu&hardware.gpu=H100-80GB-SXM5' +
    '&hardware.gpus_per_node=8&hardware.nodes=1&pricing.kind=ondemand&currency=USD';
  const { page, errors, close } = await open(hash, { expected: [422] });
  await waitForStatus(page, /^Estimated/);
  const box = page.locator('#estimate-form details.options');
  const submit = async () => {
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/estimates/training')),
      page.click('#estimate-form button[type=submit]')]);
    return request.postDataJSON();
  };
  const layoutKeys = ['tensor_parallel', 'pipeline_parallel', 'context_parallel', 'virtual_pipeline_stages',
    'zero_stage', 'sequence_parallel', 'tensor_parallel_overlap', 'activation_checkpointing', 'fp8_scaling'];
  // Untouched: folded, and none of its members sent.
  assert.equal(await box.evaluate((d) => d.open), false);
  const plain = await submit();
  assert.deepEqual(layoutKeys.filter((k) => k in plain), []);

  await box.locator('summary').click();
  const form = '#estimate-form';
  for (const [name, value] of [['tensor_parallel', '2'], ['pipeline_parallel', '2'], ['context_parallel', '2'],
    ['virtual_pipeline_stages', '2']]) await page.fill(`${form} input[name=${name}]`, value);
  await page.selectOption(`${form} select[name=zero_stage]`, '1');
  await page.selectOption(`${form} select[name=sequence_parallel]`, 'true');
  await page.check(`${form} input[name=tensor_parallel_overlap]`);
  await page.selectOption(`${form} select[name=activation_checkpointing]`, 'full');
  await page.selectOption(`${form} select[name=fp8_scaling]`, 'current');
  const sent = await submit();
  assert.deepEqual(Object.fromEntries(layoutKeys.map((k) => [k, sent[k]])), {
    tensor_parallel: 2, pipeline_parallel: 2, context_parallel: 2, virtual_pipeline_stages: 2, zero_stage: 1,
    sequence_parallel: true, tensor_parallel_overlap: true, activation_checkpointing: 'full', fp8_scaling: 'current',
  });
  await waitForStatus(page, /^Estimated/);
  const a = await apiJson('/api/v1/estimates/training', sent);
  assert.equal(a.layout.context_parallel, 2);
  const facts = await visible(page, 'dl.facts').textContent();
  assert.ok(facts.includes('TP 2 × PP 2 × CP 2 × DP 1, ZeRO 1, 2 interleaved stages per GPU, sequence parallel'), facts);
  assert.ok(facts.includes(`Total time${await format(page, 'hours', a.time.total_hours)}`), `the API's time in ${facts}`);
  assert.ok(a.assumptions.some((x) => x.includes('current scaling')), 'the recipe reached the API');

  // A degree that cannot apply, set while the box is folded: the 422 unfolds it and is shown
  // beside the field.
  await box.locator('summary').click();
  assert.equal(await box.evaluate((d) => d.open), false);
  await page.evaluate(() => { document.querySelector('#estimate-form input[name=context_parallel]').value = '3'; });
  await page.click('#estimate-form button[type=submit]');
  await waitForStatus(page, /not accepted/);
  const cp = page.locator(`${form} input[name=context_parallel]`);
  assert.equal(await cp.getAttribute('aria-invalid'), 'true');
  assert.equal(await cp.isVisible(), true);
  assert.match(await page.locator(`#${await cp.getAttribute('aria-describedby')}`).textContent(), /context_parallel/);
  await shot(page, 'estimate-layout-laptop');
  assert.deepEqual(errors, []);
  await close();
});

// The same box on Recommend: a layout set there reaches the recommendation request.
test('recommend: the layout box sends what is set', async () => {
  const { page, errors, close } = await open('#/recommend?_workload=preset&workload=llama-2-7b&_dataset=tokens' +
    '&dataset.tokens=1000000000&global_batch_size=64&precision=bf16&framework=optimized&tensor_parallel=2' +
    '&constraints.gpus=H100&constraints.max_nodes=1');
  await waitForStatus(page, /options ranked/);
  assert.equal(await page.locator('#recommend-form details.options').evaluate((d) => d.open), true);
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/recommendations')),
    page.click('#recommend-form button[type=submit]')]);
  assert.equal(request.postDataJSON().tensor_parallel, 2);
  assert.equal('context_parallel' in request.postDataJSON(), false);
  await waitForStatus(page, /options ranked/);
  assert.deepEqual(errors, []);
  await close();
});

test('recommend: ranked table, cost-time scatter with the Pareto front, rejections', async () => {
  const { page, errors, close } = await open('#/recommend');
  await presetsLoaded(page, 'recommend', 'bert-large');
  await page.fill('#recommend-form input[name="dataset.samples"]', '10000000');
  await page.fill('#r-gpus', 'A100, H100, L4');
  await page.fill('#r-limit', '15');
  await page.click('#recommend-form button[type=submit]');
  await waitForStatus(page, /options ranked/);
  const rows = page.locator('#recommend-items tbody tr');
  assert.equal(await rows.count(), 15);
  const ranks = await page.locator('#recommend-items tbody tr td:first-child').allTextContents();
  assert.deepEqual(ranks, Array.from({ length: 15 }, (_, i) => String(i + 1)));
  for (const gpus of await page.locator('#recommend-items tbody tr td:nth-child(5)').allTextContents()) {
    assert.match(gpus, /× (A100|H100|L4)/, 'the GPU constraint was applied');
  }
  const scatter = await chartData(page, '#recommend-scatter');
  assert.equal(scatter.type, 'scatter');
  const byLabel = Object.fromEntries(scatter.datasets.map((d) => [d.label, d.data]));
  assert.equal(byLabel['top three'].length, 3);
  assert.equal(byLabel['ranked options'].length, 15);
  assert.ok(byLabel['Pareto front'].length >= 1);
  for (let i = 1; i < byLabel['Pareto front'].length; ++i) {  // drawn along time, cost falling
    assert.ok(byLabel['Pareto front'][i].x >= byLabel['Pareto front'][i - 1].x);
    assert.ok(byLabel['Pareto front'][i].y <= byLabel['Pareto front'][i - 1].y);
  }
  assert.ok(await page.locator('#recommend-rejected tbody tr').count() >= 1);
  // An axis whose values spread more than tenfold is logarithmic (one outlier squashes no one).
  const types = await page.evaluate(() => {
    const c = Chart.getChart(document.querySelector('#recommend-scatter canvas'));
    return [c.options.scales.x.type, c.options.scales.y.type];
  });
  const points = scatter.datasets.flatMap((d) => d.data);
  const spread = (vs) => Math.max(...vs.filter((v) => v > 0)) / Math.min(...vs.filter((v) => v > 0)) > 10;
  assert.deepEqual(types, [spread(points.map((p) => p.x)) ? 'logarithmic' : 'linear', spread(points.map((p) => p.y)) ? 'logarithmic' : 'linear']);
  assert.ok(types.includes('logarithmic'), 'this search spreads its time or cost more than tenfold');
  await shot(page, 'recommend-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('compare: time, cost and samples per currency unit as bars', async () => {
  const { page, errors, close } = await open('#/compare');
  await presetsLoaded(page, 'compare', 'resnet-50');
  await page.selectOption('#compare-form select[name=workload]', 'resnet-50');
  await page.fill('#compare-form input[name="dataset.samples"]', '1281167');
  await page.fill('#compare-form input[name="dataset.epochs"]', '90');
  await page.fill('#k-gpus', 'T4, L4, A100-80GB-SXM4');
  await page.click('#compare-form button[type=submit]');
  await waitForStatus(page, /3 compared/);
  assert.equal(await page.locator('#compare-items tbody tr').count(), 3);
  const charts = await page.locator('#compare-charts canvas').count();
  assert.equal(charts, 3);
  // The bars are the API's numbers, in its order (best value first).
  const c = await apiJson('/api/v1/compare', { workload: 'resnet-50', dataset: { samples: 1281167, epochs: 90 },
    global_batch_size: 256, precision: 'auto', gpus: ['T4', 'L4', 'A100-80GB-SXM4'],
    gpus_per_node: 1, currency: 'USD' });
  const time = await chartData(page, '#compare-charts figure:nth-child(1)');
  assert.deepEqual(time.labels, c.items.map((r) => r.gpu));
  assert.deepEqual(time.datasets[0].data, c.items.map((r) => inUnit(time.datasets[0].label, r.hours)));
  const cost = await chartData(page, '#compare-charts figure:nth-child(2)');
  assert.deepEqual(cost.datasets[0].data, c.items.map((r) => r.cost));
  await shot(page, 'compare-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('compare instances: one estimate each, on-demand, in one batch request', async () => {
  const { page, errors, close } = await open('#/compare');
  await presetsLoaded(page, 'compare', 'bert-large');
  await page.check('#compare-form input[name=_compare][value=instances]');
  await page.fill('#k-instances', 'aws/p4d.24xlarge, gcp/a2-highgpu-1g, aws/nope.big');
  await page.click('#compare-form button[type=submit]');
  await waitForStatus(page, /2 compared, 1 not estimated/);
  const rows = await page.locator('#compare-items tbody tr td:first-child').allTextContents();
  assert.equal(rows.length, 2);
  assert.match(rows[0], /^aws\/p4d.24xlarge \(/);
  const a = await apiJson('/api/v1/estimates/training', {
    workload: 'bert-large', dataset: { samples: 10000000, epochs: 1 }, global_batch_size: 256, precision: 'auto',
    hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 }, pricing: { kind: 'ondemand' }, currency: 'USD' });
  const time = await chartData(page, '#compare-charts figure:nth-child(1)');
  assert.deepEqual(time.labels, ['aws/p4d.24xlarge', 'gcp/a2-highgpu-1g']);
  assert.equal(time.datasets[0].data[0], inUnit(time.datasets[0].label, a.time.total_hours));
  const cost = await chartData(page, '#compare-charts figure:nth-child(2)');
  assert.equal(cost.datasets[0].data[0], a.cost.ondemand.total);
  assert.match(await page.locator('#compare-failed').textContent(), /nope\.big/);
  assert.match(page.url(), /_compare=instances/);
  await shot(page, 'compare-instances-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('serving: replicas, p95 latency at the planned load against the target, the latency curve up to the cap, costs', async () => {
  const { page, errors, close } = await open('#/serving');
  await presetsLoaded(page, 'serving', 'llama-2-7b');
  await page.locator('#serving-form input[name="hardware.instance_type"]').fill('g5.xlarge');
  const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/estimates/inference') && r.method() === 'POST');
  await page.click('#serving-form button[type=submit]');
  const sent = (await request).postDataJSON();
  await waitForStatus(page, /replica/);
  const a = await apiJson('/api/v1/estimates/inference', sent);
  const facts = await visible(page, 'dl.facts').textContent();
  assert.match(facts, /Replicas\d+ × 1 GPU/);
  // latency_s is the p95 end to end at the planned load per replica (Poisson arrivals).
  assert.equal(a.latency_s, a.latency.e2e_s.p95);
  assert.ok(facts.includes(`Latency (p95, end to end, at the planned load)${await format(page, 'seconds', a.latency_s)} (target 10 s)`), facts);
  assert.ok(facts.includes(`Time to first token (p50)${await format(page, 'seconds', a.latency.ttft_s.p50)}`), facts);
  assert.doesNotMatch(facts, /Latency at batch/);
  // The curve: one replica kept full with 1, 2, 4 ... requests in flight, up to the engine's cap.
  const cap = a.batch_cap.effective;
  assert.match(await page.locator('#serving-curve figcaption').textContent(),
    new RegExp(`concurrent requests in flight \\(the batch\\), up to the engine's cap of ${cap}, set by ${a.batch_cap.binding}`));
  const curve = await chartData(page, '#serving-curve');
  const latency = curve.datasets.find((d) => d.label.startsWith('end-to-end'));
  assert.ok(latency.data.length >= 2);
  assert.equal(latency.data.at(-1).x, cap, 'the curve ends at the cap');
  assert.ok(latency.data.every((p, i) => i === 0 || p.y >= latency.data[i - 1].y), 'latency grows with the batch');
  assert.ok(curve.datasets.some((d) => d.label === 'latency target'));
  assert.deepEqual(curve.datasets.find((d) => d.label === 'planned load: p95 end to end').data, [{ x: a.batch, y: a.latency_s }]);
  const cost = await page.locator('#serving-cost').textContent();
  assert.match(cost, /on-demand/);
  assert.match(cost, /Per month/);
  await shot(page, 'serving-laptop');
  assert.deepEqual(errors, []);
  await close();
});

// Issue 24: the serving view searches the catalog for the cheapest plan.
const servingSearchHash = '#/serving?_workload=preset&workload=llama-3-8b&input_tokens=200&output_tokens=300' +
  '&target_requests_per_s=5&latency_slo_ms=3000&precision=auto&_plan=cheapest&constraints.price_kinds=ondemand&limit=10&currency=USD';

// The number in a money cell ("4,066 USD" -> 4066).
const amount = (text) => Number(text.replace(/[^\d.]/g, ''));

test('serving: the cheapest plans in the catalog, ranked; an option opens its full plan', async () => {
  const { page, errors, close } = await open('#/serving');
  await presetsLoaded(page, 'serving', 'llama-3-8b');
  await page.selectOption('#serving-form select[name=workload]', 'llama-3-8b');
  await page.fill('#s-in', '200');
  await page.fill('#s-out', '300');
  await page.fill('#s-rps', '5');
  await page.fill('#s-slo', '3000');
  await page.check('#serving-form input[name=_plan][value=cheapest]');
  assert.equal(await page.locator('#serving-form input[name="hardware.instance_type"]').isVisible(), false,
    'no hardware is asked in a search');
  await page.click('#serving-form button[type=submit]');
  await waitForStatus(page, /option\(s\) ranked/);
  assert.match(page.url(), /_plan=cheapest/);
  assert.equal(await visible(page, '.result > h3').textContent(), 'The cheapest plans for Llama-3-8B in the catalog');

  // The table is the API's ranking: the same options, the cheapest a month first.
  const r = await apiJson('/api/v1/recommendations', { task: 'inference', objective: 'cost', workload: 'llama-3-8b',
    input_tokens: 200, output_tokens: 300, target_requests_per_s: 5, latency_slo_ms: 3000, precision: 'auto',
    constraints: { price_kinds: ['ondemand'] }, limit: 10, currency: 'USD' });
  assert.ok(r.items.length >= 1, 'the catalog has a plan for this load');
  const rows = page.locator('#serving-options tbody tr');
  assert.equal(await rows.count(), r.items.length);
  const head = await page.locator('#serving-options thead th').allTextContents();
  const col = (name) => head.indexOf(name) + 1;
  const cells = (name) => page.locator(`#serving-options tbody tr td:nth-child(${col(name)})`).allTextContents();
  const months = await cells('Per month');
  assert.ok(months.every((m) => /\d.* USD$/.test(m)), `every option has a cost: ${months}`);
  assert.ok(months.every((m) => amount(m) >= amount(months[0])), `the first is the cheapest a month: ${months}`);
  const first = r.items[0];
  assert.equal(months[0], await format(page, 'money', first.cost_per_month, 'USD'));
  assert.equal((await cells('Instance type'))[0], first.instance_type);
  assert.equal((await cells('Cloud'))[0], first.cloud);
  assert.equal((await cells('Region'))[0], first.region);
  assert.equal((await cells('GPU'))[0], first.gpu);
  assert.equal((await cells('Replicas × GPUs each'))[0], `${first.replicas} × ${first.gpus_per_replica} GPU(s)`);
  assert.equal((await cells('Latency p95'))[0], await format(page, 'seconds', first.latency_p95.e2e_s));
  assert.equal(first.latency_p95.e2e_s, first.latency_s);
  assert.equal((await cells('First token p95'))[0], await format(page, 'seconds', first.latency_p95.ttft_s));
  assert.equal((await cells('Per token p95'))[0], await format(page, 'seconds', first.latency_p95.tpot_s));
  assert.equal((await cells('Saturation (req/s)'))[0], await format(page, 'num', first.saturated_requests_per_s));
  assert.equal((await cells('Per hour'))[0], await format(page, 'money', first.cost_per_hour, 'USD'));
  assert.ok((await cells('Feasibility')).every((f) => f === 'feasible'));
  await shot(page, 'serving-search-laptop');

  // The first option's full plan: its instance filled in, replicas as the search sized them,
  // the curve, and the same cost a month.
  await rows.first().getByRole('button', { name: /^Open/ }).click();
  await waitForStatus(page, /replica/);
  assert.match(page.url(), /_plan=given/);
  assert.match(page.url(), new RegExp(`hardware\\.instance_type=${first.instance_type.replace(/\./g, '\\.')}`));
  assert.equal(await page.locator('#serving-form input[name=_plan][value=given]').isChecked(), true);
  assert.equal(await page.locator('#serving-form input[name="hardware.instance_type"]').inputValue(), first.instance_type);
  assert.equal(await page.locator('#serving-form select[name="hardware.cloud"]').inputValue(), first.cloud);
  assert.equal(await page.locator('#serving-form select[name="hardware.region"]').inputValue(), first.region);
  const facts = await visible(page, 'dl.facts').textContent();
  assert.ok(facts.includes(`Instance${first.cloud} ${first.instance_type} in ${first.region}`), facts);
  assert.ok(facts.includes(`Replicas${first.replicas} × ${first.gpus_per_replica} GPU(s)`), facts);
  assert.match(facts, /target 3 s\) — met/);
  const curve = await chartData(page, '#serving-curve');
  assert.ok(curve.datasets.find((d) => d.label.startsWith('end-to-end')).data.length >= 2);
  assert.ok(curve.datasets.some((d) => d.label === 'latency target'));
  const ondemand = await page.locator('#serving-cost tbody tr', { hasText: 'on-demand' }).locator('td').allTextContents();
  assert.equal(ondemand[2], await format(page, 'money', first.cost_per_month, 'USD'));

  // Back: the search again, from its link.
  await page.goBack();
  await waitForStatus(page, /option\(s\) ranked/);
  assert.equal(await page.locator('#serving-form input[name=_plan][value=cheapest]').isChecked(), true);
  assert.equal(await rows.count(), r.items.length);

  // Nothing feasible (a target no GPU meets): no table, the reasons instead.
  await page.goto(`${base}/${servingSearchHash.replace('latency_slo_ms=3000', 'latency_slo_ms=10')}`);
  await waitForStatus(page, /^Nothing feasible/);
  assert.equal(await page.locator('#serving-options').count(), 0);
  const reasons = await page.locator('#serving-rejected tbody tr').allTextContents();
  assert.ok(reasons.some((t) => t.startsWith('does not meet the latency target')), reasons.join(' | '));
  assert.deepEqual(errors, []);
  await close();
});

const engineFields = ['engine', 'max_concurrency', 'weight_quantization', 'kv_cache_dtype', 'shared_prefix_tokens'];

test('serving: engine options are sent nested and only when set; the plan shows the engine, its batch limit and p50/p95', async () => {
  const { page, errors, close } = await open('#/serving', { expected: [422] });
  await presetsLoaded(page, 'serving', 'llama-3-8b');
  const body = () => page.evaluate(() => import('/js/forms.js').then((m) => m.formToBody(document.querySelector('#serving-form'))));
  const unset = await body();
  for (const f of engineFields) assert.ok(!(f in unset), `${f} is not sent unless set`);

  // Llama-3-8B on the form's instance (aws p4d.24xlarge), with the engine options set.
  await page.selectOption('#serving-form select[name=workload]', 'llama-3-8b');
  await page.fill('#s-in', '200');
  await page.fill('#s-out', '300');
  await page.fill('#s-rps', '5');
  await page.fill('#s-slo', '3000');
  assert.equal(await page.locator('#serving-form input[name="hardware.instance_type"]').inputValue(), 'p4d.24xlarge');
  await page.click('#s-engine-box summary');
  await page.selectOption('#s-engine-version', 'v0');
  await page.fill('#s-max-seqs', '64');
  await page.fill('#s-concurrency', '32');
  await page.selectOption('#s-wq', 'int4_awq');
  await page.selectOption('#s-kv', 'fp8');
  const wanted = { engine: { version: 'v0', max_num_seqs: 64 }, max_concurrency: 32,
    weight_quantization: 'int4_awq', kv_cache_dtype: 'fp8', shared_prefix_tokens: undefined };
  const set = await body();
  for (const f of engineFields) assert.deepEqual(set[f], wanted[f], f);

  // The server takes them: the page shows its answer to the request as sent.
  const request = page.waitForRequest((r) => r.url().endsWith('/api/v1/estimates/inference') && r.method() === 'POST');
  await page.click('#serving-form button[type=submit]');
  const sent = (await request).postDataJSON();
  await waitForStatus(page, /replica/);
  for (const f of engineFields) assert.deepEqual(sent[f], wanted[f], `${f} as sent`);
  const a = await apiJson('/api/v1/estimates/inference', sent);
  assert.equal(a.engine.version, 'v0');
  assert.equal(a.engine.max_num_seqs, 64);
  assert.equal(a.batch_cap.binding, 'client_concurrency');
  assert.equal(a.batch_cap.effective, 32);
  assert.ok(a.assumptions.some((t) => /int4_awq/.test(t) && /KV cache fp8/.test(t)), 'the quantization is the one asked');
  const facts = await visible(page, 'dl.facts').textContent();
  for (const text of ['EnginevLLM v0, max_num_seqs 64, ',
    'Batch limit32, set by the client concurrency (client_concurrency 32); max_num_seqs 64, ',
    `Latency (p95, end to end, at the planned load)${await format(page, 'seconds', a.latency_s)} (target 3 s) — met`,
    `Requests in flight at the planned load (mean)${a.batch} of at most 32`,
    `Replica rule${a.replica_rule}`]) {
    assert.ok(facts.includes(text), `${text} in ${facts}`);
  }
  assert.match(a.replica_rule, /^replicas = ceil\(target 5 req\/s \/ [\d.]+ req\/s per replica\): .*p95 latency within the targets/);

  // p50 and p95 of each latency at the planned load, as the API gives them; p95 >= p50.
  const latency = await page.locator('#serving-latency tbody tr').evaluateAll(
    (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const names = [['ttft_s', 'Time to first token'], ['tpot_s', 'Time per output token'], ['e2e_s', 'End to end']];
  assert.equal(latency.length, names.length);
  for (const [i, [key, name]] of names.entries()) {
    const p = a.latency[key];
    assert.ok(p.p95 >= p.p50, `${key}: p95 ${p.p95} >= p50 ${p.p50}`);
    assert.deepEqual(latency[i], [name, await format(page, 'seconds', p.mean), await format(page, 'seconds', p.p50),
      await format(page, 'seconds', p.p95)]);
  }
  assert.equal(a.latency.e2e_s.p95, a.latency_s, 'latency_s is the p95 end to end at the planned load');
  assert.equal(await page.locator('#serving-iteration tbody tr').count(), 8, 'the iteration terms and the total');

  // The curve: concurrent requests up to the cap (32, client_concurrency), the planned load's p95 marked.
  assert.match(await page.locator('#serving-curve figcaption').textContent(), /concurrent requests .* cap of 32, set by client_concurrency/);
  const curve = await chartData(page, '#serving-curve');
  const e2e = curve.datasets.find((d) => d.label === 'end-to-end latency, p95 (s)');
  assert.deepEqual(e2e.data.map((p) => p.x), a.curve.map((p) => p.batch));
  assert.equal(e2e.data.at(-1).x, 32);
  assert.deepEqual(curve.datasets.find((d) => d.label === 'planned load: p95 end to end').data, [{ x: a.batch, y: a.latency_s }]);
  assert.deepEqual(curve.datasets.find((d) => d.label === 'planned load: p50 end to end').data, [{ x: a.batch, y: a.latency.e2e_s.p50 }]);
  await shot(page, 'serving-engine-laptop');

  // A problem about a folded field (a real 422: with chunked prefill, v1's default, the token
  // budget must hold max_num_seqs) unfolds it and shows the problem beside the field.
  await page.selectOption('#s-engine-version', 'v1');
  await page.fill('#s-max-tokens', '32');
  await page.evaluate(() => { document.querySelector('#s-engine-box').open = false; });
  assert.match(await page.locator('#s-engine-box summary').textContent(), /6 set/, 'a folded box says what it holds');
  await page.click('#serving-form button[type=submit]');
  await waitForStatus(page, /not accepted/);
  assert.equal(await page.locator('#s-engine-box').evaluate((d) => d.open), true);
  const tokens = page.locator('#s-max-tokens');
  assert.equal(await tokens.getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator(`#${await tokens.getAttribute('aria-describedby')}`).textContent(),
    /max_num_batched_tokens must be at least max_num_seqs \(64\)/);
  await shot(page, 'serving-engine-error-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('spot history: a line per zone', async () => {
  const { page, errors, close } = await open('#/spot?cloud=aws&instance_type=p4d.24xlarge');
  await waitForStatus(page, /observations/);
  const h = await apiJson('/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&limit=10000');
  const zones = new Set(h.items.map((i) => `${i.region} ${i.zone}`));
  const chart = await chartData(page, '#spot-chart');
  // The on-demand price to compare with: the lowest of the regions the history covers, as the
  // instance's API answer gives it.
  const detail = await apiJson('/api/v1/instances/aws/p4d.24xlarge');
  const covered = new Set(h.items.map((i) => i.region));
  const lowest = Math.min(...detail.regions.filter((r) => covered.has(r.region) && Number.isFinite(r.price_ondemand_per_hour))
    .map((r) => r.price_ondemand_per_hour));
  const perZone = new Map();
  for (const i of h.items) perZone.set(`${i.region} ${i.zone}`, (perZone.get(`${i.region} ${i.zone}`) || 0) + 1);
  if ([...perZone.values()].every((n) => n === 1)) {
    // One snapshot per zone (the seeded catalog): bars, cheapest first, on-demand last.
    assert.equal(chart.type, 'bar');
    assert.equal(chart.labels.length, zones.size + 1);
    assert.match(chart.labels[zones.size], /^on-demand \(/);
    const values = chart.datasets[0].data;
    assert.equal(values[zones.size], lowest);
    assert.deepEqual(values.slice(0, -1), h.items.map((i) => i.price_per_hour).sort((a, b) => a - b));
  } else {
    // A line per zone in distinct colours, and the on-demand price as the last line.
    const zoneSets = chart.datasets.slice(0, -1);
    const reference = chart.datasets[chart.datasets.length - 1];
    assert.equal(zoneSets.length, zones.size);
    assert.equal(zoneSets.reduce((n, d) => n + d.data.length, 0), h.items.length);
    assert.match(reference.label, /^on-demand /);
    assert.deepEqual(reference.data.map((p) => p.y), [lowest, lowest]);
  }
  assert.equal(await page.locator('#spot-zones tbody tr').count(), zones.size);

  // Older observations of two zones (recorded through the API): lines over time, a colour
  // each, and the region's on-demand price as a dashed reference line.
  const key = server.createKey('spot-history', 'write');
  const older = ['use2-az1', 'use2-az2'].flatMap((zone, z) => ['2026-11-20T00:00:00Z', '2026-11-23T00:00:00Z'].map((at, i) => ({
    cloud: 'aws', region: 'us-east-2', zone, instance_type: 'p4d.24xlarge', kind: 'spot',
    price_per_hour: 5 + z + i, currency: 'USD', observed_at: at, source: 'dashboard test' })));
  const posted = await fetch(`${base}/api/v1/prices`, { method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ prices: older }) });
  assert.equal(posted.status, 201, await posted.text());
  await page.goto(`${base}/#/spot?cloud=aws&instance_type=p4d.24xlarge&region=us-east-2`);
  await waitForStatus(page, /observations/);
  const h2 = await apiJson('/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&region=us-east-2&limit=10000');
  const lines = await chartData(page, '#spot-chart');
  assert.equal(lines.type, 'scatter');
  const zoneLines = lines.datasets.slice(0, -1);
  assert.equal(zoneLines.length, new Set(h2.items.map((i) => i.zone)).size);
  assert.equal(zoneLines.reduce((n, d) => n + d.data.length, 0), h2.items.length);
  const reference = lines.datasets[lines.datasets.length - 1];
  const east2 = detail.regions.find((r) => r.region === 'us-east-2').price_ondemand_per_hour;
  assert.match(reference.label, /^on-demand /);
  assert.deepEqual(reference.data.map((p) => p.y), [east2, east2]);
  const colours = await page.evaluate(() => Chart.getChart(document.querySelector('#spot-chart canvas')).data.datasets.map((d) => d.borderColor));
  assert.equal(new Set(colours).size, colours.length, 'every line its own colour');
  await shot(page, 'spot-history-lines-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('a bad input shows the problem title and detail beside its field', async () => {
  const { page, errors, close } = await open(estimateHash.replace('global_batch_size=256', 'global_batch_size=0'),
    { expected: [422] });
  await waitForStatus(page, /not accepted/);
  const field = page.locator('#estimate-form input[name=global_batch_size]');
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  const note = page.locator(`#${await field.getAttribute('aria-describedby')}`);
  assert.match(await note.textContent(), /global_batch_size/);
  const label = await field.evaluate((el) => el.closest('label').nextElementSibling.className);
  assert.equal(label, 'field-error');  // right after the field's label
  assert.match(await page.locator('#estimate-form .form-error').textContent(), /^Unprocessable Content: /);

  // A nested pointer: an unknown GPU in the recommendation's constraints.
  await page.goto(`${base}/#/recommend?_workload=preset&workload=bert-large&_dataset=samples&dataset.samples=1000000&dataset.epochs=1&global_batch_size=256&constraints.gpus=A100%2C%20H10O`);
  await waitForStatus(page, /not accepted/);
  const gpus = page.locator('#r-gpus');
  assert.equal(await gpus.getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator(`#${await gpus.getAttribute('aria-describedby')}`).textContent(), /H10O/);
  await shot(page, 'error-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('a shared URL restores the form and its answer', async () => {
  const { page, errors, close } = await open('#/estimate');
  await presetsLoaded(page, 'estimate', 'resnet-50');
  await page.selectOption('#estimate-form select[name=workload]', 'resnet-50');
  await page.check('#estimate-form input[name=_dataset][value=hours]');
  await page.fill('#estimate-form input[name="dataset.hours"]', '12');
  await page.check('#estimate-form input[name=_hardware][value=gpu]');
  await page.selectOption('#estimate-form select[name="hardware.gpu"]', 'L4');
  await page.fill('#estimate-form fieldset:not([disabled]) input[name="hardware.gpus_per_node"]', '4');
  await page.click('#estimate-form button[type=submit]');
  await waitForStatus(page, /^Estimated: 12/);
  const shared = page.url();
  assert.match(shared, /dataset\.hours=12/);

  const other = await open(shared.slice(base.length + 1));
  await waitForStatus(other.page, /^Estimated: 12/);
  const form = other.page.locator('#estimate-form');
  assert.equal(await form.locator('select[name=workload]').inputValue(), 'resnet-50');
  assert.equal(await form.locator('input[name=_dataset][value=hours]').isChecked(), true);
  assert.equal(await form.locator('input[name="dataset.hours"]').inputValue(), '12');
  assert.equal(await form.locator('select[name="hardware.gpu"]').inputValue(), 'L4');
  assert.equal(await form.locator('fieldset:not([disabled]) input[name="hardware.gpus_per_node"]').inputValue(), '4');
  assert.match(await other.page.locator('#view-estimate h3').first().textContent(), /4 × L4/);
  assert.deepEqual(errors, []);
  assert.deepEqual(other.errors, []);
  await other.close();
  await close();
});

test('a superseded request is cancelled: the newest form wins', async () => {
  const { page, errors, close } = await open('#/estimate');
  let calls = 0;
  await page.route('**/api/v1/estimates/training', async (route) => {
    calls += 1;
    if (calls === 1) await new Promise((r) => setTimeout(r, 1500));  // the first answer is slow
    try {
      await route.continue();
    } catch { /* aborted by the page */ }
  });
  await presetsLoaded(page, 'estimate', 'bert-large');
  await page.fill('#estimate-form input[name=global_batch_size]', '128');
  await page.click('#estimate-form button[type=submit]');
  await page.fill('#estimate-form input[name=global_batch_size]', '512');
  await page.click('#estimate-form button[type=submit]');
  await waitForStatus(page, /^Estimated/);
  await page.waitForTimeout(2000);  // the slow first answer has arrived (or been dropped) by now
  const facts = await visible(page, 'dl.facts').textContent();
  const first = await apiJson('/api/v1/estimates/training', {
    workload: 'bert-large', dataset: { samples: 10000000, epochs: 1 }, global_batch_size: 128, precision: 'auto',
    hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' });
  const answer = await apiJson('/api/v1/estimates/training', {
    workload: 'bert-large', dataset: { samples: 10000000, epochs: 1 }, global_batch_size: 512, precision: 'auto',
    hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' });
  const shown = (a) => `${a.micro_batch_size} × ${a.gradient_accumulation_steps} accumulation`;
  assert.notEqual(shown(first), shown(answer), 'the two answers can be told apart');
  assert.ok(facts.includes(shown(answer)), facts);
  assert.ok(calls >= 2);
  assert.deepEqual(errors, []);
  await close();
});

test('every form control has a label and the keyboard reaches the submit button', async () => {
  const { page, errors, close } = await open('#/estimate');
  for (const view of ['recommend', 'compare', 'serving', 'spot', 'catalog', 'estimate']) {
    await page.click(`nav a[data-view=${view}]`);  // every view's form is built
  }
  await presetsLoaded(page, 'estimate', 'bert-large');
  const ids = await page.evaluate(() => [...document.querySelectorAll('[id]')].map((el) => el.id));
  assert.equal(new Set(ids).size, ids.length, 'no id twice');
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll('input, select, button')]
    .filter((el) => el.type !== 'hidden' && el.tagName !== 'BUTTON' && el.labels.length === 0)
    .map((el) => el.name || el.id));
  assert.deepEqual(unlabelled, []);
  await page.focus('#estimate-form select[name=workload]');
  let reached = false;
  for (let i = 0; i < 60 && !reached; ++i) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.matches('#estimate-form button[type=submit]'));
  }
  assert.ok(reached, 'Tab reaches Estimate');
  await page.keyboard.press('Enter');
  await waitForStatus(page, /^Estimated/);
  assert.deepEqual(errors, []);
  await close();
});

test('the API reference at /docs renders /openapi.json with the vendored viewer, offline', async () => {
  for (const [size, viewport] of [['laptop', laptop], ['phone', phone]]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors = [];
    const elsewhere = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('request', (r) => {  // blob: and data: URLs are the page's own (Redoc's search worker)
      if (!r.url().startsWith(base) && !/^(data|blob):/.test(r.url())) elsewhere.push(r.url());
    });
    await page.goto(`${base}/docs`);
    const spec = await (await fetch(`${base}/openapi.json`)).json();
    assert.equal(spec.openapi, '3.1.0');
    await page.locator('h1').filter({ hasText: spec.info.title }).waitFor({ timeout: 20000 });
    // Every operation of the document is in the page (the sidebar lists them all).
    for (const item of Object.values(spec.paths)) {
      for (const op of Object.values(item).filter((o) => o.operationId)) {
        assert.ok(await page.getByText(op.summary, { exact: true }).count() > 0, op.summary);
      }
    }
    assert.deepEqual(elsewhere, [], 'nothing is fetched from outside the server');
    assert.deepEqual(errors, []);
    await shot(page, `api-docs-${size}`, false);  // the first screen: the page is very long
    await context.close();
  }
});

test('Back and Forward show what the URL says, and the lists that depend on it', async () => {
  const { page, errors, close } = await open('#/catalog?cloud=gcp&gpu=H100');
  await page.waitForFunction(() => /of \d+ offers/.test(document.querySelector('#view-catalog .count')?.textContent || ''));
  await page.waitForFunction(() => [...document.querySelectorAll('#c-region option')].some((o) => o.value === 'us-central1'));
  await page.fill('#c-gpu', '');
  await page.selectOption('#c-cloud', 'aws');
  await page.waitForFunction(() => /cloud=aws/.test(location.hash));
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody tr')].every((tr) => tr.cells[0].textContent === 'aws'));
  await page.goBack();
  await page.waitForFunction(() => /cloud=gcp/.test(location.hash));
  await page.waitForFunction(() => document.querySelector('#c-gpu').value === 'H100');
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody tr')].every(
    (tr) => tr.cells[0].textContent === 'gcp' && tr.cells[3].textContent.startsWith('H100')));
  await page.waitForFunction(() => [...document.querySelectorAll('#c-region option')].some((o) => o.value === 'us-central1'));
  await page.goForward();
  // The URL has no gpu: the field is empty again, not what was typed before.
  await page.waitForFunction(() => /cloud=aws/.test(location.hash) && !/gpu=/.test(location.hash));
  await page.waitForFunction(() => document.querySelector('#c-gpu').value === '');
  await page.waitForFunction(() => [...document.querySelectorAll('#c-region option')].some((o) => o.value === 'us-east-1'));
  assert.ok(!(await page.locator('#c-region option[value="us-central1"]').count()), 'regions follow the cloud');
  assert.deepEqual(errors, []);
  await close();
});

test('"More offers" pages the search shown, even after the form is edited', async () => {
  const { page, errors, close } = await open('#/catalog?cloud=aws&limit=25');
  await page.locator('#offers tbody tr').first().waitFor();
  await page.fill('#c-gpu', 'T4');  // typed, not searched
  await page.click('#more');
  await page.waitForFunction(() => document.querySelectorAll('#offers tbody tr').length === 50);
  const keys = await page.locator('#offers tbody tr').evaluateAll((rows) => rows.map((r) => `${r.cells[1].textContent} ${r.cells[2].textContent}`));
  assert.equal(new Set(keys).size, 50, 'no row twice');
  assert.match(await page.locator('#view-catalog .count').textContent(), /^50 of \d+ offers$/);
  assert.deepEqual(errors, []);
  await close();
});

test('a view opened later still offers every currency; the bottleneck bar is marked for every name', async () => {
  const { page, errors, close } = await open('#/catalog');
  await page.locator('#offers tbody tr').first().waitFor();
  await page.click('nav a[data-view=estimate]');
  const rates = await apiJson('/api/v1/fx-rates');
  await page.waitForFunction((n) => document.querySelectorAll('#estimate-form select[name=currency] option').length === n,
    rates.items.length);
  // A memory-bound step (ResNet-50, batch 8 on a T4): the memory bar is the marked one.
  await page.goto(`${base}/#/estimate?_workload=preset&workload=resnet-50&_dataset=samples&dataset.samples=100000` +
    '&global_batch_size=8&_hardware=gpu&hardware.gpu=T4&hardware.gpus_per_node=1&hardware.nodes=1&pricing.kind=ondemand');
  await waitForStatus(page, /^Estimated/);
  const colors = await page.evaluate(() => Chart.getChart(document.querySelector('#estimate-breakdown canvas'))
    .data.datasets[0].backgroundColor);
  const caption = await page.locator('#estimate-breakdown figcaption').textContent();
  assert.match(caption, /bottleneck: memory bandwidth/);
  const marked = colors.flatMap((c, i) => (c === '#d9622b' ? [i] : []));  // charts.js highlight
  assert.deepEqual(marked, [1], `the memory bar (second) is the one marked: ${colors}`);
  assert.deepEqual(errors, []);
  await close();
});

test('serving without a latency target shows no target; compare names an instance without its cloud', async () => {
  const { page, errors, close } = await open('#/serving?_workload=preset&workload=llama-2-7b&input_tokens=512&output_tokens=128' +
    '&target_requests_per_s=5&latency_slo_ms=&_hardware=gpu&hardware.gpu=L4&hardware.gpus_per_node=1&hardware.nodes=1' +
    '&pricing.kind=ondemand');
  await waitForStatus(page, /replica|Does not fit/);
  assert.equal(await page.locator('#s-slo').inputValue(), '', 'a cleared field stays cleared');
  const facts = await visible(page, 'dl.facts').textContent();
  assert.doesNotMatch(facts, /\(target [^)]*\) —/, 'no latency target against the latency');
  assert.match(facts, /no latency target given/, 'the replica rule says why none bounds the load');
  const curve = await chartData(page, '#serving-curve');
  assert.ok(!curve.datasets.some((d) => d.label === 'latency target'));
  await page.goto(`${base}/#/compare`);
  await presetsLoaded(page, 'compare', 'bert-large');
  await page.check('#compare-form input[name=_compare][value=instances]');
  await page.fill('#k-instances', 'p4d.24xlarge');
  await page.click('#compare-form button[type=submit]');
  await waitForStatus(page, /not accepted/);
  assert.equal(await page.locator('#k-instances').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(errors, []);
  await close();
});

test('a malformed or unknown link shows the catalog; detail pages name what they show', async () => {
  const { page, errors, close } = await open('#/toString');
  await page.locator('#offers tbody tr').first().waitFor();
  assert.equal(await page.locator('#view-catalog').isVisible(), true);
  await page.goto(`${base}/#/gpu/%E0`);
  await page.locator('#offers tbody tr').first().waitFor();
  await page.goto(`${base}/#/gpu/A100-80GB-SXM4`);
  await page.locator('#view-gpu dl.facts').waitFor();
  await page.goto(`${base}/#/gpu/H100-80GB-SXM5`);
  await page.waitForFunction(() => document.title.startsWith('GPU H100-80GB-SXM5'));
  assert.equal(await page.locator('#gpu-title').textContent(), 'GPU H100-80GB-SXM5');
  assert.deepEqual(errors, []);
  await close();
});

const views = {
  catalog: '#/catalog',
  'gpu-detail': '#/gpu/H100-80GB-SXM5',
  'instance-detail': '#/instance/aws/p4d.24xlarge',
  estimate: estimateHash,
  recommend: '#/recommend?_workload=preset&workload=bert-large&_dataset=samples&dataset.samples=10000000&dataset.epochs=1&global_batch_size=256&constraints.gpus=A100%2C%20H100%2C%20L4&limit=10',
  compare: '#/compare?_workload=preset&workload=resnet-50&_dataset=samples&dataset.samples=1281167&dataset.epochs=90&global_batch_size=256&gpus=T4%2C%20L4%2C%20A10G%2C%20A100-80GB-SXM4&gpus_per_node=1',
  serving: '#/serving?_workload=preset&workload=llama-2-7b&input_tokens=512&output_tokens=256&target_requests_per_s=5&latency_slo_ms=10000&_hardware=instance&hardware.cloud=aws&hardware.instance_type=g5.xlarge&hardware.nodes=1&pricing.kind=both',
  'serving-search': servingSearchHash,
  'spot-history': '#/spot?cloud=aws&instance_type=p4d.24xlarge',
  'measured-runs': '#/runs',
};

test('every view at laptop and phone width: no console errors, nothing wider than the screen', async () => {
  for (const [name, hash] of Object.entries(views)) {
    for (const [size, viewport] of [['laptop', laptop], ['phone', phone]]) {
      const { page, errors, close } = await open(hash, { viewport });
      await page.waitForFunction(() => {
        const s = document.querySelector('section:not([hidden])');
        return s && !s.hasAttribute('aria-busy') && (s.querySelector('.result')?.children.length > 0);
      }, null, { timeout: 20000 });
      await page.waitForTimeout(100);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `${name} at ${size} is ${overflow}px wider than the screen`);
      await shot(page, `${name}-${size}`);
      assert.deepEqual(errors, [], `${name} at ${size}`);
      await close();
    }
  }
});

// Issue 23: an infeasible option is shown as infeasible, never as a plan.
const timeFigure = /\b\d[\d,.]*\s?(min|h|d)\b/;  // what format.js hours() writes

test('compare: a GPU the model does not fit on is shown as infeasible, without time, cost or value', async () => {
  const { page, errors, close } = await open('#/compare');
  await presetsLoaded(page, 'compare', 'llama-2-13b');
  await page.selectOption('#compare-form select[name=workload]', 'llama-2-13b');
  await page.check('#compare-form input[name=_dataset][value=tokens]');
  await page.fill('#compare-form input[name="dataset.tokens"]', '1e11');
  await page.fill('#k-gpus', 'A100-80GB-SXM4,H100-80GB-SXM5,L4');
  await page.fill('#k-per-node', '8');
  await page.click('#compare-form button[type=submit]');
  await waitForStatus(page, /3 compared/);
  const c = await apiJson('/api/v1/compare', { workload: 'llama-2-13b', dataset: { tokens: 1e11 }, global_batch_size: 256,
    precision: 'auto', gpus: ['A100-80GB-SXM4', 'H100-80GB-SXM5', 'L4'], gpus_per_node: 8, currency: 'USD' });
  const l4 = c.items.find((r) => r.gpu === 'L4');
  assert.ok(l4.memory_verdict === 'does_not_fit' && l4.feasibility.feasible === false,
    `the API says L4 x 8 cannot run a 13 B model: ${JSON.stringify(l4.feasibility ?? l4.memory_verdict)}`);
  assert.match(await statusOf(page), /not feasible: L4 \(does not fit/);

  // Its row says so, with the nearest change, and has no time, cost or value.
  const rows = await page.locator('#compare-items tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({ cells: [...tr.cells].map((td) => td.textContent), className: tr.className })));
  assert.equal(rows.length, 3);
  const row = rows.find((r) => r.cells[0] === 'L4');
  const text = row.cells.join(' | ');
  assert.match(text, /does not fit/i);
  assert.equal(l4.feasibility.feasible, false);
  assert.ok(l4.feasibility.nearest_change, 'the API names the nearest change');
  assert.ok(text.includes(l4.feasibility.nearest_change), text);
  const figures = row.cells.slice(3).join(' | ');  // after GPU, precision and the price per GPU-hour
  assert.doesNotMatch(figures, timeFigure, `no time in the L4 row: ${figures}`);
  assert.equal(l4.cost, null, 'the API gives the L4 row no cost');
  assert.equal(l4.hours, null, 'the API gives the L4 row no time');
  // Ranked after every plan that can run; the best-value mark is on a plan that can.
  assert.equal(rows[rows.length - 1].cells[0], 'L4', 'the infeasible row is last');
  const best = rows.filter((r) => /best value/.test(r.cells.join(' ')));
  assert.equal(best.length, 1);
  assert.notEqual(best[0].cells[0], 'L4');
  assert.match(best[0].className, /best/);

  // No bar for L4 in any chart; the highlighted value bar is not L4's.
  for (const n of [1, 2, 3]) {
    const chart = await chartData(page, `#compare-charts figure:nth-child(${n})`);
    const i = chart.labels.findIndex((l) => l.startsWith('L4'));
    assert.match(chart.labels[i], /does not fit/);
    assert.equal(chart.datasets[0].data[i], null, `chart ${n} has no L4 bar`);
  }
  const colors = await page.evaluate(() => Chart.getChart(document.querySelector('#compare-charts figure:nth-child(3) canvas'))
    .data.datasets[0].backgroundColor);
  const value = await chartData(page, '#compare-charts figure:nth-child(3)');
  const marked = colors.flatMap((col, i) => (col === '#d9622b' ? [value.labels[i]] : []));
  assert.equal(marked.length, 1);
  assert.notEqual(marked[0].slice(0, 2), 'L4');
  await shot(page, 'compare-infeasible-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('estimate: a job that does not fit says so, with the nearest change, and gives no time or cost', async () => {
  const hash = '#/estimate?_workload=preset&workload=llama-2-7b&_dataset=tokens&dataset.tokens=1e10&global_batch_size=256' +
    '&precision=auto&_hardware=gpu&hardware.gpu=L4&hardware.gpus_per_node=1&hardware.nodes=1&pricing.kind=both&currency=USD';
  const { page, errors, close } = await open(hash);
  await waitForStatus(page, /Does not fit|^Estimated/);
  const a = await apiJson('/api/v1/estimates/training', { workload: 'llama-2-7b', dataset: { tokens: 1e10 },
    global_batch_size: 256, precision: 'auto', hardware: { gpu: 'L4', gpus_per_node: 1, nodes: 1 },
    pricing: { kind: 'both' }, currency: 'USD' });
  assert.equal(a.memory.verdict, 'does_not_fit', 'the API says a 7 B model does not fit one L4');
  const status = await statusOf(page);
  assert.match(status, /does not fit/i);
  assert.doesNotMatch(status, /Estimated/);
  assert.doesNotMatch(status, timeFigure, status);
  assert.equal(a.feasibility.feasible, false);
  const nearest = a.feasibility.nearest_change;
  assert.ok(nearest, 'the API names the nearest change');
  assert.ok(status.includes(`Nearest change: ${nearest}`), status);
  const verdict = await page.locator('#estimate-verdict').textContent();
  assert.match(verdict, /does not fit/i);
  const result = await visible(page, '.result').textContent();
  assert.doesNotMatch(result, /Total time|P10–P90|Throughput|MFU/);
  assert.equal(await page.locator('#estimate-cost').count(), 0, 'no cost table');
  assert.equal(await page.locator('#estimate-breakdown').count(), 0, 'no step time of a plan that cannot run');
  assert.match(await page.locator('#estimate-memory figcaption').textContent(), /does not fit/);
  assert.equal(a.time.total_hours, null, 'the API gives it no time');
  assert.equal(a.cost.ondemand, null, 'the API gives it no cost');
  await shot(page, 'estimate-does-not-fit-laptop');
  assert.deepEqual(errors, []);
  await close();
});

// A recommendation with a deadline, offering spot with an on-demand fallback too.
const recommendDeadlineHash = '#/recommend?_workload=preset&workload=bert-large&_dataset=samples&dataset.samples=100000000' +
  '&dataset.epochs=1&global_batch_size=256&precision=auto&constraints.gpus=A100%2C%20H100%2C%20L4&constraints.max_nodes=4' +
  '&constraints.deadline_hours=24&constraints.price_kinds=ondemand%2Cspot%2Cspot_with_fallback&objective=cost&limit=20&currency=USD';
const recommendDeadlineBody = { workload: 'bert-large', dataset: { samples: 100000000, epochs: 1 }, global_batch_size: 256,
  precision: 'auto', constraints: { gpus: ['A100', 'H100', 'L4'], max_nodes: 4, deadline_hours: 24,
    price_kinds: ['ondemand', 'spot', 'spot_with_fallback'] }, objective: 'cost', limit: 20, currency: 'USD' };

test('recommend: P90 time next to time, price kinds named apart, each item\'s flags and warnings', async () => {
  const { page, errors, close } = await open(recommendDeadlineHash);
  await waitForStatus(page, /options ranked/);
  const r = await apiJson('/api/v1/recommendations', recommendDeadlineBody);
  assert.ok(r.items.length > 0, 'something meets a 24 h deadline');
  const headers = await page.locator('#recommend-items thead th').allTextContents();
  const col = (name) => headers.indexOf(name);
  assert.equal(col('P90 time'), col('Time') + 1, `P90 next to time: ${headers}`);
  const rows = await page.locator('#recommend-items tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  assert.equal(rows.length, r.items.length);
  const kinds = { ondemand: 'on-demand', spot: 'spot', spot_with_fallback: 'spot with fallback' };
  for (const [i, it] of r.items.entries()) {
    assert.equal(rows[i][col('Price kind')], kinds[it.price_kind], `row ${i + 1} price kind`);
    assert.equal(rows[i][col('Time')], await format(page, 'hours', it.hours));
    if (Number.isFinite(it.p90_hours)) {
      assert.equal(rows[i][col('P90 time')], await format(page, 'hours', it.p90_hours));
      assert.ok(it.p90_hours <= 24, `row ${i + 1}: P90 within the deadline`);
    }
    for (const w of it.warnings || []) assert.ok(rows[i][col('Notes')].includes(w), `row ${i + 1} shows ${w}`);
    if ((it.price_flags || []).length) assert.notEqual(rows[i][col('Notes')], '', `row ${i + 1} shows its price flags`);
  }
  // Two rows that differ only in price kind do not read alike.
  const keys = rows.map((cells) => cells.slice(1, col('Per hour')).join('|'));
  assert.equal(new Set(keys).size, new Set(r.items.map((it) => `${it.cloud}|${it.region}|${it.instance_type}|${it.nodes}|${it.price_kind}`)).size);
  await shot(page, 'recommend-deadline-laptop');
  assert.deepEqual(errors, []);
  await close();
});

// The warnings box and the assumptions list of the view shown hold the answer's lines.
async function checkNotes(page, warnings, assumptions, name) {
  assert.ok(assumptions.length > 0, `${name}: the answer names its assumptions`);
  const shownWarnings = await visible(page, '.notes .warnings li').allTextContents();
  assert.deepEqual(shownWarnings, warnings, `${name}: warnings`);
  if (warnings.length) {
    assert.ok(await visible(page, '.notes .warnings').isVisible(), `${name}: warnings visible`);
    assert.equal(await visible(page, '.notes .warnings h3').textContent(), `Warnings (${warnings.length})`);
  }
  const summary = visible(page, '.notes details.assumptions summary');
  assert.equal(await summary.textContent(), `Assumptions (${assumptions.length})`, `${name}: assumptions`);
  await summary.click();  // folded by default: one click shows them
  const first = visible(page, '.notes details.assumptions li').first();
  assert.ok(await first.isVisible(), `${name}: assumptions open`);
  assert.deepEqual(await visible(page, '.notes details.assumptions li').allTextContents(), assumptions);
}

test('warnings and assumptions are shown in Estimate, Recommend, Compare and Serving', async () => {
  // Estimate (spot priced: its warnings), at the hash the estimate test uses.
  const { page, errors, close } = await open(estimateHash);
  await waitForStatus(page, /^Estimated/);
  const e = await apiJson('/api/v1/estimates/training', { workload: 'bert-large', dataset: { samples: 10000000, epochs: 3 },
    global_batch_size: 256, precision: 'auto', hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 },
    pricing: { kind: 'both' }, currency: 'USD' });
  await checkNotes(page, e.warnings, e.assumptions, 'estimate');
  let warned = e.warnings.length;

  // Recommend with a deadline (the confidence it is held to is an assumption): the answer's
  // own lines; item warnings and price flags go in its rows.
  await page.goto(`${base}/${recommendDeadlineHash}`);
  await waitForStatus(page, /options ranked/);
  const r = await apiJson('/api/v1/recommendations', recommendDeadlineBody);
  await checkNotes(page, r.warnings || [], r.assumptions, 'recommend');
  warned += (r.warnings || []).length;

  // Compare: the answer's lines, and each GPU's own warnings named by the GPU.
  await page.goto(`${base}/${views.compare}`);
  await waitForStatus(page, /compared/);
  const c = await apiJson('/api/v1/compare', { workload: 'resnet-50', dataset: { samples: 1281167, epochs: 90 },
    global_batch_size: 256, precision: 'auto', gpus: ['T4', 'L4', 'A10G', 'A100-80GB-SXM4'], gpus_per_node: 1, currency: 'USD' });
  const compareWarnings = [...(c.warnings || []),
    ...c.items.filter((i) => !i.error).flatMap((i) => (i.warnings || []).map((w) => `${i.gpu}: ${w}`))];
  await checkNotes(page, compareWarnings, c.assumptions || [], 'compare');
  warned += compareWarnings.length;

  // Serving (on-demand and spot: spot capacity can be reclaimed).
  await page.goto(`${base}/${views.serving}`);
  await waitForStatus(page, /replica|not|Does/);
  const s = await apiJson('/api/v1/estimates/inference', { workload: 'llama-2-7b', input_tokens: 512, output_tokens: 256,
    target_requests_per_s: 5, latency_slo_ms: 10000, precision: 'auto',
    hardware: { cloud: 'aws', instance_type: 'g5.xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' });
  await checkNotes(page, s.warnings, s.assumptions, 'serving');
  warned += s.warnings.length;
  assert.ok(warned > 0, 'at least one of these answers has warnings, so the box was checked');
  await shot(page, 'serving-notes-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('durations read as minutes, hours or days and days and hours', async () => {
  const { page, errors, close } = await open('#/catalog');
  const cases = [[0.75, '45 min'], [6.56, '6.6 h'], [20.34, '20.3 h'], [76, '3 d 4 h'], [48, '2 d'], [6205.3, '258 d 13 h'], [null, '—']];
  for (const [h, text] of cases) assert.equal(await format(page, 'hours', h), text);
  assert.deepEqual(errors, []);
  await close();
});

test('step times and other seconds read in a unit chosen per value, never "76,600 ms"', async () => {
  const { page, errors, close } = await open('#/catalog');
  const cases = [[0.00000406, '4.06 µs'], [0, '0 ms'], [0.0672, '67.2 ms'], [0.5, '500 ms'], [7.5, '7.5 s'], [76.6, '1.3 min'], [5400, '1.5 h'], [null, '—']];
  for (const [s, text] of cases) assert.equal(await format(page, 'seconds', s), text);
  const axis = await page.evaluate(() => import('/js/format.js').then((m) =>
    [[0.02, 0.5], [3, 70], [400], [0.5, 2]].map((v, i) => m.durationAxis(v, { from: i < 3 ? 'seconds' : 'hours' }).unit)));
  assert.deepEqual(axis, ['ms', 'seconds', 'minutes', 'hours']);
  assert.deepEqual(errors, []);
  await close();
});

// A training request as the estimate form sends it for `hash` (the tests below build both).
const fixedHash = '#/estimate?_workload=preset&workload=bert-large&_dataset=hours&dataset.hours=24' +
  '&global_batch_size=256&precision=auto&_hardware=instance&hardware.cloud=aws&hardware.instance_type=p4d.24xlarge' +
  '&hardware.nodes=1&pricing.kind=both&currency=USD';
const fixedBody = { workload: 'bert-large', dataset: { hours: 24 }, global_batch_size: 256, precision: 'auto',
  hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' };

test('estimate: a fixed duration shows the range of its work, not "24 h – 24 h"', async () => {
  const { page, errors, close } = await open(fixedHash);
  await waitForStatus(page, /^Estimated/);
  const a = await apiJson('/api/v1/estimates/training', fixedBody);
  assert.equal(a.time.fixed_duration, true);
  assert.ok(a.time.p90_samples > a.time.p10_samples, 'the API gives a range of work');
  const facts = await visible(page, 'dl.facts').textContent();
  const work = `${await format(page, 'count', a.time.p10_samples)} – ${await format(page, 'count', a.time.p90_samples)} samples`;
  assert.ok(facts.includes(`P10–P90 work${work}`), `work range ${work} in ${facts}`);
  const result = await visible(page, '.result').textContent();
  assert.doesNotMatch(result, /(\d[\d.,]* (h|d|min)) – \1/, 'no range from a value to itself');
  assert.doesNotMatch(result, /\d{2},\d{3} ms/, 'no five-digit milliseconds');
  await shot(page, 'estimate-fixed-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('estimate: spot with an on-demand fallback and a deadline, filled in the form, shows the API\'s figures', async () => {
  const { page, errors, close } = await open(estimateHash);
  await waitForStatus(page, /^Estimated/);
  await page.selectOption('#estimate-form select[name="pricing.kind"]', 'spot_with_fallback');
  const deadline = page.locator('#estimate-form input[name="pricing.deadline_hours"]');
  assert.ok(await deadline.isVisible(), 'the deadline appears with the fallback');
  await deadline.fill('5');
  await page.click('#estimate-form button[type=submit]');
  await waitForStatus(page, /spot with fallback/);
  const a = await apiJson('/api/v1/estimates/training', { workload: 'bert-large', dataset: { samples: 10000000, epochs: 3 },
    global_batch_size: 256, precision: 'auto', hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 },
    pricing: { kind: 'spot_with_fallback', deadline_hours: 5 }, currency: 'USD' });
  const fb = a.cost.spot_with_fallback;
  assert.ok(fb, 'the API prices the fallback');
  const cost = await page.locator('#estimate-cost').textContent();
  assert.ok(cost.includes('Spot with fallback'), cost);
  for (const [fn, v] of [['money', fb.expected_total], ['money', fb.p90_total], ['hours', fb.expected_hours],
    ['hours', fb.p90_hours], ['hours', fb.deadline_hours]]) {
    const text = await format(page, fn, v);
    assert.ok(cost.includes(text), `${text} in ${cost}`);
  }
  assert.match(page.url(), /pricing\.deadline_hours=5/);
  assert.deepEqual(errors, []);
  await close();
});

test('estimate and recommend: a reference run gives the work, as the API says', async () => {
  const { page, errors, close } = await open('#/estimate');
  await presetsLoaded(page, 'estimate', 'bert-large');
  await page.check('#estimate-form input[name=_dataset][value=reference]');
  await page.locator('#estimate-form select[name="reference_run.hardware.gpu"] option[value="V100-16GB-SXM2"]').waitFor({ state: 'attached' });
  await page.selectOption('#estimate-form select[name="reference_run.hardware.gpu"]', 'V100-16GB-SXM2');
  await page.fill('#estimate-form input[name="reference_run.hardware.gpus_per_node"]', '8');
  await page.fill('#estimate-form input[name="reference_run.hours"]', '144');
  await page.fill('#estimate-form input[name="hardware.instance_type"]', 'p5.48xlarge');
  await page.click('#estimate-form button[type=submit]');
  await waitForStatus(page, /^Estimated/);
  const body = { workload: 'bert-large', global_batch_size: 256, precision: 'auto',
    reference_run: { hardware: { gpu: 'V100-16GB-SXM2', gpus_per_node: 8, nodes: 1 }, hours: 144 },
    hardware: { cloud: 'aws', instance_type: 'p5.48xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' };
  const a = await apiJson('/api/v1/estimates/training', body);
  assert.ok(a.reference_run && a.reference_run.samples > 0, 'the API answers a reference run');
  const facts = await visible(page, 'dl.facts').textContent();
  assert.ok(facts.includes(`Total time${await format(page, 'hours', a.time.total_hours)}`), facts);
  assert.ok(facts.includes(`${await format(page, 'count', a.reference_run.samples)} samples`), facts);
  assert.ok(facts.includes(`${await format(page, 'hours', a.time.p10_hours)} – ${await format(page, 'hours', a.time.p90_hours)}`));

  // The same reference on Recommend: its items' times are the API's.
  await page.goto(`${base}/#/recommend?_workload=preset&workload=bert-large&_dataset=reference` +
    '&reference_run.hardware.gpu=V100-16GB-SXM2&reference_run.hardware.gpus_per_node=8&reference_run.hours=144' +
    '&global_batch_size=256&precision=auto&constraints.gpus=H100&constraints.max_nodes=2&objective=cost&limit=5&currency=USD');
  await waitForStatus(page, /options ranked/);
  const r = await apiJson('/api/v1/recommendations', { workload: 'bert-large', global_batch_size: 256, precision: 'auto',
    reference_run: { hardware: { gpu: 'V100-16GB-SXM2', gpus_per_node: 8, nodes: 1 }, hours: 144 },
    constraints: { gpus: ['H100'], max_nodes: 2 }, objective: 'cost', limit: 5, currency: 'USD' });
  assert.ok(r.items.length > 0);
  const times = await page.locator('#recommend-items tbody tr td:nth-child(9)').allTextContents();
  assert.deepEqual(times, await Promise.all(r.items.map((it) => format(page, 'hours', it.hours))));
  assert.deepEqual(errors, []);
  await close();
});

// The text of the YAML the API answers to a POST with `?query`.
async function apiYaml(path, body) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res.text();
}

test('export as SkyPilot / Kubernetes: view, copy and download an estimate and a recommendation item', async () => {
  const { page, errors, close } = await open(estimateHash);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await waitForStatus(page, /^Estimated/);
  const body = { workload: 'bert-large', dataset: { samples: 10000000, epochs: 3 }, global_batch_size: 256, precision: 'auto',
    hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' };
  const box = visible(page, 'details.export');
  await box.locator('summary').click();
  await box.locator('button[data-format=skypilot]').click();
  await page.waitForFunction(() => !document.querySelector('section:not([hidden]) pre.export-yaml').hidden);
  const sky = await apiYaml('/api/v1/estimates/training?format=skypilot', body);
  assert.equal(await box.locator('pre.export-yaml').textContent(), sky);
  await box.getByRole('button', { name: 'Copy shown YAML' }).click();
  await page.waitForFunction(() => /Copied|Selected/.test(document.querySelector('section:not([hidden]) .export-status').textContent));
  if (/Copied/.test(await box.locator('.export-status').textContent())) {
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), sky);
  }
  const [download] = await Promise.all([page.waitForEvent('download'), box.getByText('Download Kubernetes').click()]);
  const { readFileSync } = await import('node:fs');
  assert.equal(readFileSync(await download.path(), 'utf8'), await apiYaml('/api/v1/estimates/training?format=kubernetes', body));
  assert.match(download.suggestedFilename(), /kubernetes\.yaml$/);

  // A recommendation: the second item's Export button, then Kubernetes.
  await page.goto(`${base}/${recommendDeadlineHash}`);
  await waitForStatus(page, /options ranked/);
  await page.locator('#recommend-items tbody tr').nth(1).getByRole('button', { name: /Export item 2/ }).click();
  const rbox = visible(page, 'details.export');
  assert.equal(await rbox.getAttribute('open'), '');
  assert.match(await rbox.locator('.export-what').textContent(), /^Plan: #2:/);
  await rbox.locator('button[data-format=kubernetes]').click();
  await page.waitForFunction(() => !document.querySelector('section:not([hidden]) pre.export-yaml').hidden);
  const k8s = await apiYaml('/api/v1/recommendations?format=kubernetes&item=2', recommendDeadlineBody);
  assert.equal(await rbox.locator('pre.export-yaml').textContent(), k8s);
  await shot(page, 'recommend-export-laptop');

  // A serving plan on given hardware (an inference estimate), and a serving search's option.
  await page.goto(`${base}/${views.serving}`);
  await waitForStatus(page, /replica|not|Does/);
  const sbox = visible(page, 'details.export');
  await sbox.locator('summary').click();
  await sbox.locator('button[data-format=skypilot]').click();
  await page.waitForFunction(() => !document.querySelector('section:not([hidden]) pre.export-yaml').hidden);
  assert.equal(await sbox.locator('pre.export-yaml').textContent(), await apiYaml('/api/v1/estimates/inference?format=skypilot', {
    workload: 'llama-2-7b', input_tokens: 512, output_tokens: 256, target_requests_per_s: 5, latency_slo_ms: 10000,
    precision: 'auto', hardware: { cloud: 'aws', instance_type: 'g5.xlarge', nodes: 1 }, pricing: { kind: 'both' }, currency: 'USD' }));
  await page.goto(`${base}/${servingSearchHash}`);
  await waitForStatus(page, /ranked/);
  await page.locator('#serving-options tbody tr').first().getByRole('button', { name: /^Export option 1/ }).click();
  const obox = visible(page, 'details.export');
  await obox.locator('button[data-format=kubernetes]').click();
  await page.waitForFunction(() => !document.querySelector('section:not([hidden]) pre.export-yaml').hidden);
  assert.equal(await obox.locator('pre.export-yaml').textContent(), await apiYaml('/api/v1/recommendations?format=kubernetes&item=1', {
    task: 'inference', objective: 'cost', workload: 'llama-3-8b', input_tokens: 200, output_tokens: 300, target_requests_per_s: 5,
    latency_slo_ms: 3000, precision: 'auto', constraints: { price_kinds: ['ondemand'] }, limit: 10, currency: 'USD' }));
  assert.deepEqual(errors, []);
  await close();
});

test('recommend: price kinds and deadline confidence are the user\'s; spot with fallback only', async () => {
  const { page, errors, close } = await open(recommendDeadlineHash);
  await waitForStatus(page, /options ranked/);
  await page.selectOption('#r-kinds', 'spot_with_fallback');
  await page.selectOption('#r-confidence', 'p50');
  await page.click('#recommend-form button[type=submit]');
  await page.waitForFunction(() => /deadline_confidence=p50/.test(location.hash));
  await waitForStatus(page, /options ranked/);
  const r = await apiJson('/api/v1/recommendations', { ...recommendDeadlineBody,
    constraints: { ...recommendDeadlineBody.constraints, price_kinds: ['spot_with_fallback'], deadline_confidence: 'p50' } });
  assert.ok(r.items.length > 0);
  assert.equal(r.deadline_confidence, 'p50');
  const kinds = await page.locator('#recommend-items tbody tr td:nth-child(7)').allTextContents();
  assert.deepEqual(kinds, r.items.map(() => 'spot with fallback'));
  const costs = await page.locator('#recommend-items tbody tr td:nth-child(11)').allTextContents();
  assert.deepEqual(costs, await Promise.all(r.items.map((it) => format(page, 'money', it.cost, r.currency))));
  assert.match(await page.locator('#recommend-items caption').textContent(), /deadlines held to P50/);
  assert.deepEqual(errors, []);
  await close();
});

test('measured runs: the key stays out of the URL; a run from the form and a CSV, the list, the calibration on an estimate', async () => {
  const key = server.createKey('dashboard-runs', 'write');
  const auth = { Authorization: `Bearer ${key}` };
  const { page, errors, close } = await open('#/runs', { expected: [422] });
  // Every request the page makes, and every address it shows, from here on: the key must be in
  // none of them (only in the Authorization header).
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('framenavigated', (f) => urls.push(f.url()));
  await presetsLoaded(page, 'runs', 'bert-large');
  await page.fill('#m-key', key);
  await page.click('#key-form button[type=submit]');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('gpuplan.apiKey')), key);
  assert.ok(!page.url().includes(key), 'the key is not in the URL after it is kept');
  await page.locator('#runs-form select[name="hardware.gpu"] option[value="A100-80GB-SXM4"]').waitFor({ state: 'attached' });
  await page.selectOption('#runs-form select[name="hardware.gpu"]', 'A100-80GB-SXM4');
  await page.fill('#m-per-node', '8');
  await page.fill('#m-sps', '3000');
  await page.fill('#m-note', 'dashboard test run');
  await page.click('#runs-form button[type=submit]');
  await waitForStatus(page, /^Recorded run #\d+/);
  const status = await statusOf(page);
  const id = Number(status.match(/#(\d+)/)[1]);
  const listed = await (await fetch(`${base}/api/v1/measurements`, { headers: auth })).json();
  const run = listed.items.find((m) => m.id === id);
  assert.ok(run, 'the API lists the recorded run');
  assert.equal(run.samples_per_s, 3000);
  assert.equal(run.note, 'dashboard test run');

  // A CSV of two runs, one the API refuses: one recorded, the other shown with why.
  const csv = 'workload,gpu,gpus_per_node,nodes,global_batch_size,precision,samples_per_s,note\n' +
    'bert-large,A100-80GB-SXM4,8,1,256,bf16,3100,"from a CSV, quoted"\n' +
    'bert-large,NO-SUCH-GPU,8,1,256,bf16,3100,bad\n';
  await page.setInputFiles('#m-file', { name: 'runs.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.click('#runs-upload button[type=submit]');
  await waitForStatus(page, /1 of 2 run\(s\) recorded from runs\.csv/);
  const lines = await page.locator('#runs-upload-lines tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.equal(lines.length, 2);
  assert.match(lines[0][1], /^recorded #\d+$/);
  assert.equal(lines[1][0], '3');
  assert.equal(lines[1][1], 'not recorded');
  const refused = await (await fetch(`${base}/api/v1/measurements`, { method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ workload: 'bert-large',
      hardware: { gpu: 'NO-SUCH-GPU', gpus_per_node: 8, nodes: 1 }, global_batch_size: 256, precision: 'bf16',
      measured: { samples_per_s: 3100 }, note: 'bad' }) })).json();
  assert.ok(lines[1][2].includes(refused.errors[0].detail), `${lines[1][2]} names ${refused.errors[0].detail}`);

  // The list is the API's.
  const all = await (await fetch(`${base}/api/v1/measurements?limit=100`, { headers: auth })).json();
  await page.waitForFunction((n) => document.querySelectorAll('#runs-list tbody tr').length === n, all.items.length);
  assert.deepEqual(await page.locator('#runs-list tbody tr td:first-child').allTextContents(), all.items.map((m) => String(m.id)));
  assert.ok(all.items.some((m) => m.note === 'from a CSV, quoted'));

  // An estimate on that GPU is calibrated by the key's runs, as the API says for the same key.
  const hash = '#/estimate?_workload=preset&workload=bert-large&_dataset=samples&dataset.samples=10000000&dataset.epochs=1' +
    '&global_batch_size=256&precision=auto&_hardware=gpu&hardware.gpu=A100-80GB-SXM4&hardware.gpus_per_node=8&hardware.nodes=1' +
    '&pricing.kind=ondemand&currency=USD';
  await page.goto(`${base}/${hash}`);
  await waitForStatus(page, /^Estimated/);
  const res = await fetch(`${base}/api/v1/estimates/training`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ workload: 'bert-large', dataset: { samples: 10000000, epochs: 1 }, global_batch_size: 256, precision: 'auto',
      hardware: { gpu: 'A100-80GB-SXM4', gpus_per_node: 8, nodes: 1 }, pricing: { kind: 'ondemand' }, currency: 'USD' }) });
  const a = await res.json();
  assert.ok(a.calibration && a.calibration.runs === 2, 'the API calibrates by the two runs');
  const facts = await visible(page, 'dl.facts').textContent();
  assert.ok(facts.includes(`Calibration× ${await format(page, 'num', a.calibration.factor, 3)} from 2 measured run(s)`), facts);
  assert.ok(facts.includes(`Total time${await format(page, 'hours', a.time.total_hours)}`), facts);
  assert.ok(!page.url().includes(key), 'the key is never in the URL');
  assert.ok(urls.length > 5, `requests seen: ${urls.length}`);
  assert.deepEqual(urls.filter((u) => u.includes(key)), [], 'no request or address holds the key');
  await shot(page, 'estimate-calibrated-laptop');
  assert.deepEqual(errors, []);
  await close();
});

test('own or rent: a default workload shows a break-even at once; every amount in the chosen currency', async () => {
  const { page, errors, close } = await open('#/gpu/RTX-4090');
  const form = page.locator('#ownership-form');
  await form.waitFor();
  assert.equal(await form.locator('select[name="training.workload"]').inputValue(), 'resnet-50');
  await form.locator('select[name=currency] option[value=EUR]').waitFor({ state: 'attached' });
  await form.locator('select[name=currency]').selectOption('EUR');
  const rates = await apiJson('/api/v1/fx-rates');
  const eur = rates.items.find((r) => r.currency === 'EUR').units_per_usd;
  const price = Number((1599 * eur).toPrecision(4));
  await page.waitForFunction((p) => document.querySelector('#ownership-form input[name=purchase_price]').value === String(p), price);
  assert.match(await form.locator('label', { has: page.locator('input[name=purchase_price]') }).textContent(), /\(EUR\)/);
  await form.locator('button[type=submit]').click();
  await page.locator('#ownership-comparisons tbody tr').first().waitFor();
  const answer = await apiJson('/api/v1/estimates/ownership', { gpu: 'RTX-4090', currency: 'EUR', purchase_price: price, gpus: 1,
    electricity_price_per_kwh: Number((0.15 * eur).toPrecision(4)), utilisation: 1, years: 3,
    training: { workload: 'resnet-50', dataset: { samples: 1281167 }, global_batch_size: 256 } });
  assert.equal(answer.currency, 'EUR');
  const summary = await page.locator('#ownership-summary').textContent();
  assert.ok(summary.includes(await format(page, 'money', answer.cost_per_gpu_hour, 'EUR')), summary);
  const rows = await page.locator('#ownership-comparisons tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  const work = answer.comparisons.findIndex((c) => c.basis === 'same_work' && c.found && c.break_even_months !== null);
  assert.ok(work >= 0, 'a same-work option with a break-even');
  assert.equal(rows[work][5], await format(page, 'num', answer.comparisons[work].break_even_months, 3));
  assert.match(await page.locator('#ownership-comparisons thead').textContent(), /Break-even \(months\)/);
  // The break-even column is on screen at a laptop's width.
  const right = await page.locator('#ownership-comparisons th').last().evaluate((th) => th.getBoundingClientRect().right);
  assert.ok(right <= 1366, `Break-even column ends at ${right}px`);
  await shot(page, 'ownership-eur-laptop');
  assert.deepEqual(errors, []);
  await close();
});

// The API query of the catalog search the page's URL holds (its UI-only `_` fields left out).
async function catalogQuery(page) {
  const hash = await page.evaluate(() => location.hash);
  const params = new URLSearchParams(hash.split('?')[1] || '');
  for (const name of [...params.keys()]) if (name.startsWith('_')) params.delete(name);
  return params;
}

test('catalog: header sort, a column filter, the price period, columns, CSV of the view, compare selected', async () => {
  const { page, errors, close } = await open('#/catalog?cloud=aws&gpu=A100');
  const rows = page.locator('#offers tbody tr');
  await rows.first().waitFor();
  const typesShown = () => page.locator('#offers tbody tr td:nth-child(3)').allTextContents();
  // At laptop width every price column is on screen (the headers wrap).
  for (const col of ['ondemand', 'spot', 'per_gpu']) {
    const right = await page.locator(`#offers th[data-col=${col}]`).evaluate((th) => th.getBoundingClientRect().right);
    assert.ok(right <= 1366, `${col} column ends at ${right}px`);
  }

  // Click-to-sort: GPUs ascending, then descending; the order is the API's for the same query.
  await page.locator('#offers th[data-col=gpu_count] button').click();
  await page.waitForFunction(() => /sort=gpu_count/.test(location.hash) && /order=asc/.test(location.hash));
  await page.waitForFunction(() => document.querySelector('#offers th[data-col=gpu_count]')?.getAttribute('aria-sort') === 'ascending');
  let api = await apiJson(`/api/v1/instances?${await catalogQuery(page)}`);
  assert.deepEqual(await typesShown(), api.items.map((it) => it.instance_type));
  await page.locator('#offers th[data-col=gpu_count] button').click();
  await page.waitForFunction(() => document.querySelector('#offers th[data-col=gpu_count]')?.getAttribute('aria-sort') === 'descending');
  api = await apiJson(`/api/v1/instances?${await catalogQuery(page)}`);
  assert.match((await catalogQuery(page)).toString(), /order=desc/);
  assert.deepEqual(await typesShown(), api.items.map((it) => it.instance_type));
  const counts = (await page.locator('#offers tbody tr td:nth-child(5)').allTextContents()).map(Number);
  assert.ok(counts.every((v, i) => i === 0 || counts[i - 1] >= v), `descending GPU counts: ${counts}`);

  // A column filter: min GPUs 8 in the GPUs column's filter. Each search redraws the table
  // and its filter row when its answer arrives: `redrawn` waits for that before the next step
  // types into the row (text typed into the old row is lost when the new one replaces it).
  const markFilterRow = () => page.evaluate(() => { document.querySelector('#offers tr.filters-row').dataset.old = '1'; });
  const filterRowRedrawn = () => page.waitForFunction(() => { const row = document.querySelector('#offers tr.filters-row'); return row && !row.dataset.old; });
  const minGpus = page.locator('#offers tr.filters-row td[data-col=gpu_count] input');
  await markFilterRow();
  await minGpus.fill('8');
  await minGpus.press('Enter');
  await filterRowRedrawn();
  await page.waitForFunction(() => /min_gpu_count=8/.test(location.hash));
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody tr')].every((tr) => Number(tr.cells[4].textContent) >= 8));
  api = await apiJson(`/api/v1/instances?${await catalogQuery(page)}`);
  assert.ok(api.items.length > 0);
  assert.deepEqual(await typesShown(), api.items.map((it) => it.instance_type));

  // The other columns' filters: interconnect NVSwitch and part of the instance type.
  await markFilterRow();
  await page.locator('#offers tr.filters-row td[data-col=interconnect] select').selectOption('nvswitch');
  await page.waitForFunction(() => /interconnect=nvswitch/.test(location.hash));
  await filterRowRedrawn();
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody td[data-col=interconnect]')].every((td) => td.textContent === 'nvswitch'));
  const typeFilter = page.locator('#offers tr.filters-row td[data-col=instance_type] input');
  await markFilterRow();
  await typeFilter.fill('P4');
  await typeFilter.press('Enter');
  await page.waitForFunction(() => /instance_type=P4/.test(location.hash));
  await filterRowRedrawn();
  await page.waitForFunction(() => [...document.querySelectorAll('#offers tbody tr td:nth-child(3)')].every((td) => /p4/i.test(td.textContent)));
  api = await apiJson(`/api/v1/instances?${await catalogQuery(page)}`);
  assert.ok(api.items.length > 0);
  assert.ok(api.items.every((it) => it.interconnect === 'nvswitch' && /p4/i.test(it.instance_type)));
  assert.deepEqual(await typesShown(), api.items.map((it) => it.instance_type));
  // Cleared one at a time: a search redraws the table and its filter row (marked to see that).
  await markFilterRow();
  await page.locator('#offers tr.filters-row td[data-col=interconnect] select').selectOption('');
  await page.waitForFunction(() => !/interconnect=/.test(location.hash));
  await filterRowRedrawn();
  await typeFilter.fill('');
  await typeFilter.press('Enter');
  await page.waitForFunction(() => !/interconnect=|instance_type=/.test(location.hash));

  // Prices per month: each on-demand price × 730, in the currency the API converted to.
  await page.selectOption('#c-period', 'month');
  await page.waitForFunction(() => document.querySelector('#offers th[data-col=ondemand]')?.textContent.startsWith('On-demand / month'));
  api = await apiJson(`/api/v1/instances?${await catalogQuery(page)}`);
  const monthly = await page.locator('#offers tbody tr td[data-col=ondemand]').allTextContents();
  assert.deepEqual(monthly, await Promise.all(api.items.map((it) => format(page, 'money', it.price_ondemand_per_hour * 730))));

  // The CSV download is the API's export of the same search.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#offers-csv')]);
  const { readFileSync } = await import('node:fs');
  const query = await catalogQuery(page);
  query.delete('limit');
  query.set('format', 'csv');
  const exported = await (await fetch(`${base}/api/v1/instances?${query}`)).text();
  assert.equal(readFileSync(await download.path(), 'utf8'), exported);
  assert.equal(exported.trim().split('\r\n').length, api.total + 1, 'every matching offer, not one page');

  // The column chooser hides a column, and remembers it.
  const chooser = page.locator('details.columns');
  await chooser.locator('summary').click();
  await chooser.getByLabel('vCPUs').uncheck();
  assert.equal(await page.locator('#offers th[data-col=vcpus]').isHidden(), true);
  await page.reload();
  await rows.first().waitFor();
  assert.equal(await page.locator('#offers th[data-col=vcpus]').isHidden(), true);
  await page.evaluate(() => localStorage.removeItem('gpuplan.catalog.hiddenColumns'));

  // Select two offers -> compare them as instances.
  const picked = [];
  for (const i of [0, 1]) {
    const cells = await rows.nth(i).locator('td').allTextContents();
    picked.push(`${cells[0]}/${cells[2]}`);
    await rows.nth(i).locator('input[type=checkbox]').check();
  }
  await page.click('#compare-selected');
  await page.waitForFunction(() => location.hash.startsWith('#/compare'));
  await waitForStatus(page, /compared/);
  const compared = await page.locator('#compare-items tbody tr td:first-child').allTextContents();
  for (const name of new Set(picked)) assert.ok(compared.some((c) => c.startsWith(name)), `${name} in ${compared}`);
  await shot(page, 'catalog-compare-laptop');
  assert.deepEqual(errors, []);
  await close();
});

// axe-core (tests/browser's devDependency, injected from node_modules: nothing is fetched) on
// every view at both widths: no serious or critical violation.
test('accessibility: axe-core finds no serious or critical violation on any view', async () => {
  const axePath = join(root, 'tests/browser/node_modules/axe-core/axe.min.js');
  const found = [];
  for (const [name, hash] of Object.entries({ ...views, 'estimate-fallback': estimateHash.replace('pricing.kind=both',
    'pricing.kind=spot_with_fallback&pricing.deadline_hours=5'), 'api-docs': null })) {
    for (const [size, viewport] of [['laptop', laptop], ['phone', phone]]) {
      const { page, errors, close } = await open(hash ?? '', { viewport });
      if (hash === null) {
        await page.goto(`${base}/docs`);
        await page.waitForLoadState('networkidle');
      } else {
        await page.waitForFunction(() => {
          const s = document.querySelector('section:not([hidden])');
          return s && !s.hasAttribute('aria-busy') && (s.querySelector('.result')?.children.length > 0);
        }, null, { timeout: 20000 });
        // Folded boxes open, so what they hold is checked too.
        await page.evaluate(() => document.querySelectorAll('section:not([hidden]) details').forEach((d) => { d.open = true; }));
      }
      await page.addScriptTag({ path: axePath });
      const violations = await page.evaluate(async () => (await axe.run(document, { resultTypes: ['violations'] }))
        .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
      for (const v of violations) found.push(`${name} at ${size}: ${v}`);
      assert.deepEqual(errors, [], `${name} at ${size}`);
      await close();
    }
  }
  assert.deepEqual(found, []);
});
