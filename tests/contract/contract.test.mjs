// The published contract, checked against the running server: every request below goes to
// a real server on a fresh seeded database, and each answer (successes and errors) must be
// one the OpenAPI document (static/openapi.json) describes for that path, method and
// status, with a body its schema accepts (Ajv, JSON Schema 2020-12; answer objects are
// closed: a renamed or unlisted field fails). Every documented operation must be exercised,
// and the requests meant to succeed must themselves be valid request bodies.
//
// Run: node --test contract.test.mjs (tests/contract/run.sh, from ctest).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { root, startServer } from '../support/server.mjs';

const doc = JSON.parse(readFileSync(join(root, 'static/openapi.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, 'openapi');

let server;
let key;

before(async () => {
  server = await startServer();
  key = server.createKey('contract', 'admin');
});
after(async () => { if (server) await server.stop(); });

// Path templates of the document as regular expressions.
const templates = Object.keys(doc.paths).map((t) => ({
  template: t,
  pattern: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}$`),
}));
const pointer = (...parts) => parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function operationFor(method, path) {
  const found = templates.find((t) => t.pattern.test(path));
  if (!found) return null;
  const op = doc.paths[found.template][method.toLowerCase()];
  return op ? { template: found.template, op } : null;
}

function resolveResponse(response) {
  if (response && response.$ref) {
    const name = response.$ref.split('/').pop();
    return doc.components.responses[name];
  }
  return response;
}

const exercised = new Map();  // "GET /api/v1/gpus" -> set of statuses

// Sends one request and checks the answer against the document. `expect`: the status.
async function check(method, target, { body, contentType = 'application/json', auth = false, expect }) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = contentType;
  if (auth) headers.Authorization = `Bearer ${key}`;
  const res = await fetch(server.base + target, {
    method, headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const where = `${method} ${target} -> ${res.status}`;
  assert.equal(res.status, expect, `${where}: expected ${expect}: ${text.slice(0, 300)}`);
  const path = target.split('?')[0];
  if (res.status === 405) {
    // A method the path does not have: Allow lists the documented ones, the body is a problem.
    const t = templates.find((x) => x.pattern.test(path));
    assert.ok(t, `${where}: no such path in the document`);
    const documentedMethods = Object.keys(doc.paths[t.template]).filter((m) => m !== 'parameters').map((m) => m.toUpperCase());
    const allow = res.headers.get('allow').split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    assert.deepEqual(allow.sort(), documentedMethods.sort(), `${where}: Allow`);
    const validate = ajv.getSchema('openapi#/components/schemas/Problem');
    assert.ok(validate(JSON.parse(text)), `${where}: ${ajv.errorsText(validate.errors)}`);
    return text;
  }
  const found = operationFor(method, path);
  assert.ok(found, `${where}: no operation in the document`);
  const { template, op } = found;
  const id = `${method} ${template}`;
  if (!exercised.has(id)) exercised.set(id, new Set());
  exercised.get(id).add(res.status);

  // A request meant to succeed must be one the document accepts.
  if (res.status < 300 && body !== undefined && typeof body !== 'string' && op.requestBody) {
    const schemaRef = `openapi#/${pointer('paths', template, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`;
    const validate = ajv.getSchema(schemaRef);
    assert.ok(validate(body), `${where}: the request does not match the document: ${ajv.errorsText(validate.errors)}`);
  }

  const documented = op.responses[String(res.status)];
  assert.ok(documented, `${where}: status ${res.status} is not documented for ${id}`);
  const response = resolveResponse(documented);
  if (!response.content) {
    assert.equal(text, '', `${where}: documented without a body, got one`);
    return text;
  }
  const answeredType = (res.headers.get('content-type') || '').split(';')[0].trim();
  const media = Object.keys(response.content).find((m) => m === answeredType);
  assert.ok(media, `${where}: content type ${answeredType} is not documented (${Object.keys(response.content)})`);
  if (media === 'application/json' || media === 'application/problem+json') {
    const value = JSON.parse(text);
    const ref = documented.$ref
      ? `openapi#/${pointer('components', 'responses', documented.$ref.split('/').pop(), 'content', media, 'schema')}`
      : `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', res.status, 'content', media, 'schema')}`;
    const validate = ajv.getSchema(ref);
    assert.ok(validate, `${where}: no schema at ${ref}`);
    assert.ok(validate(value), `${where}: the answer does not match the document: ${ajv.errorsText(validate.errors, { separator: '\n' })}`);
    return value;
  }
  return text;
}

const train = (extra = {}) => ({ workload: 'bert-large', dataset: { samples: 1e6, epochs: 1 }, global_batch_size: 256, ...extra });
const serve = (extra = {}) => ({ workload: 'llama-2-7b', input_tokens: 512, output_tokens: 128, target_requests_per_s: 5, ...extra });

test('every answer matches the document', async () => {
  await check('GET', '/healthz', { expect: 200 });
  await check('GET', '/readyz', { expect: 200 });
  await check('GET', '/metrics', { expect: 200 });
  await check('DELETE', '/api/v1/workloads', { expect: 405 });

  // Catalog reads.
  await check('GET', '/api/v1/gpus', { expect: 200 });
  await check('GET', '/api/v1/gpus?vendor=nvidia', { expect: 200 });
  for (const id of ['T4', 'A10G', 'H100-80GB-SXM5', 'A100-80GB-SXM4']) await check('GET', `/api/v1/gpus/${id}`, { expect: 200 });
  await check('GET', '/api/v1/gpus/NOPE', { expect: 404 });
  await check('GET', '/api/v1/clouds', { expect: 200 });
  await check('GET', '/api/v1/regions', { expect: 200 });
  await check('GET', '/api/v1/regions?cloud=gcp', { expect: 200 });
  const page = await check('GET', '/api/v1/instances?limit=500', { expect: 200 });
  await check('GET', `/api/v1/instances?limit=500&cursor=${page.next_cursor}`, { expect: 200 });
  await check('GET', '/api/v1/instances?price_kind=spot&currency=EUR&sort=price_per_gpu&order=desc&limit=100', { expect: 200 });
  await check('GET', '/api/v1/instances?cloud=alibaba&gpu=A10&min_gpu_count=1&max_price_per_hour=100', { expect: 200 });
  await check('GET', '/api/v1/instances?limit=0', { expect: 422 });
  for (const it of ['aws/p4d.24xlarge', 'gcp/a3-highgpu-8g', 'alibaba/ecs.gn7i-c8g1.2xlarge', 'gcp/n1-standard-8+1xT4']) {
    await check('GET', `/api/v1/instances/${encodeURIComponent(it.split('/')[0])}/${encodeURIComponent(it.split('/')[1])}`, { expect: 200 });
  }
  await check('GET', '/api/v1/instances/aws/nope', { expect: 404 });
  await check('GET', '/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge', { expect: 200 });
  await check('GET', '/api/v1/prices/spot-history?cloud=gcp&instance_type=a2-highgpu-1g&limit=3', { expect: 200 });
  await check('GET', '/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&since=notadate', { expect: 422 });
  await check('GET', '/api/v1/fx-rates', { expect: 200 });
  await check('GET', '/api/v1/workloads', { expect: 200 });
  await check('GET', '/api/v1/workloads?family=nope', { expect: 422 });
  for (const w of ['resnet-50', 'bart-large', 'mixtral-8x7b', 'vit-l-16', 'nnunet-3d']) await check('GET', `/api/v1/workloads/${w}`, { expect: 200 });
  await check('GET', '/api/v1/workloads/nope', { expect: 404 });

  // Planning.
  const T = '/api/v1/estimates/training';
  for (const body of [
    train({ hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge' }, pricing: { kind: 'both' } }),
    train({ workload: 'resnet-50', dataset: { samples: 1281167, epochs: 2 }, hardware: { gpu: 'T4', gpus_per_node: 4 } }),
    train({ workload: 'resnet-50', hardware: { gpu: 'A100-80GB-SXM4', price_per_hour: 3, spot_price_per_hour: 1, price_currency: 'EUR' }, currency: 'CNY' }),
    train({ workload: 'llama-2-7b', dataset: { tokens: 1e9 }, hardware: { cloud: 'gcp', instance_type: 'a2-highgpu-8g' }, pricing: { kind: 'spot' } }),
    train({ workload: 'llama-2-70b', dataset: { tokens: 1e9 }, hardware: { gpu: 'L4' } }),
    train({ dataset: { hours: 5 }, hardware: { cloud: 'alibaba', instance_type: 'ecs.gn7i-c8g1.2xlarge' }, pricing: { kind: 'ondemand' } }),
    train({ workload: { family: 'decoder', layers: 4, hidden: 512, heads: 8, seq_len: 256, vocab: 1000 }, hardware: { gpu: 'H100-80GB-SXM5', gpus_per_node: 8, nodes: 2 } }),
    train({ workload: 'transformer-big', hardware: { cloud: 'aws', instance_type: 'p3.16xlarge', nodes: 2 }, pricing: { kind: 'both', interruption_rate_per_hour: 5 } }),
  ]) await check('POST', T, { body, expect: 200 });
  await check('POST', T, { body: train({ global_batch_size: 0, hardware: { gpu: 'T4' } }), expect: 422 });
  await check('POST', T, { body: '{bad json', expect: 400 });
  await check('POST', T, { body: 'x', contentType: 'text/plain', expect: 415 });
  await check('POST', `${T}:batch`, { body: { scenarios: [train({ hardware: { gpu: 'T4' } }), train({ global_batch_size: 0, hardware: { gpu: 'T4' } })] }, expect: 200 });
  await check('POST', `${T}:batch`, { body: { scenarios: [] }, expect: 422 });
  const I = '/api/v1/estimates/inference';
  for (const body of [
    serve({ hardware: { cloud: 'aws', instance_type: 'g5.xlarge' }, latency_slo_ms: 5000 }),
    serve({ workload: 'llama-2-70b', hardware: { gpu: 'T4' } }),
    { workload: 'bert-large', input_tokens: 128, output_tokens: 1, target_samples_per_s: 100, hardware: { gpu: 'L4' } },
    serve({ hardware: { gpu: 'A100-80GB-SXM4', gpus_per_node: 8 }, tensor_parallel: 2, pricing: { kind: 'spot' } }),
  ]) await check('POST', I, { body, expect: 200 });
  await check('POST', I, { body: serve({ hardware: { gpu: 'T4' }, latency_slo_ms: -1 }), expect: 422 });
  // Serving model v3: the engine object, quantisation, the client's concurrency cap and a
  // shared prefix; decoders answer engine and batch_cap, and when they fit saturation,
  // kv_limit, latency percentiles and the iteration's terms.
  const decoder = await check('POST', I, { body: serve({ workload: 'llama-3-8b', input_tokens: 200, output_tokens: 300,
    target_requests_per_s: 50, latency_slo_ms: 2000, hardware: { gpu: 'A100-80GB-SXM4', gpus_per_node: 8 } }), expect: 200 });
  for (const k of ['engine', 'batch_cap', 'saturation', 'kv_limit', 'latency', 'iteration', 'replica_rule']) assert.ok(k in decoder, `decoder answer has ${k}`);
  assert.equal(decoder.batch_cap.client_concurrency, null, 'no client cap: null');
  const engine = { name: 'vllm', version: 'v1', max_num_seqs: 64, max_num_batched_tokens: 4096, gpu_memory_utilization: 0.85,
    cuda_graphs: true, chunked_prefill: true, prefix_caching: true, max_model_len: 4096, num_scheduler_steps: 1,
    frontend_multiprocessing: false };
  const tuned = await check('POST', I, { body: serve({ workload: 'llama-3-8b', hardware: { gpu: 'H100-80GB-SXM5' }, engine,
    ttft_slo_ms: 500, tpot_slo_ms: 50, latency_slo_ms: 10000 }), expect: 200 });
  assert.equal(tuned.engine.max_num_seqs, 64);
  const capped = await check('POST', I, { body: serve({ workload: 'llama-3-8b', hardware: { gpu: 'L4' }, weight_quantization: 'int4_awq',
    kv_cache_dtype: 'fp8', max_concurrency: 8, shared_prefix_tokens: 256 }), expect: 200 });
  assert.equal(capped.batch_cap.binding, 'client_concurrency');
  assert.equal(capped.batch_cap.client_concurrency, 8);
  for (const body of [
    serve({ hardware: { gpu: 'H100-80GB-SXM5', gpus_per_node: 8 }, engine: { version: 'v0', chunked_prefill: false, cuda_graphs: false, prefix_caching: false } }),
    serve({ workload: 'mixtral-8x7b', hardware: { gpu: 'H100-80GB-SXM5', gpus_per_node: 8 }, weight_quantization: 'fp8', engine: { num_scheduler_steps: 8 } }),
    serve({ hardware: { gpu: 'L4' }, weight_quantization: 'int8', kv_cache_dtype: 'auto', engine: { gpu_memory_utilization: 0.05 } }),  // does not fit
    { workload: 'resnet-50', target_samples_per_s: 100, hardware: { gpu: 'T4' } },
  ]) await check('POST', I, { body, expect: 200 });
  const bad = await check('POST', I, { body: serve({ hardware: { gpu: 'L4' }, engine: { version: 'v2' } }), expect: 422 });
  assert.deepEqual(bad.errors.map((e) => e.pointer), ['/engine/version']);
  await check('POST', I, { body: serve({ hardware: { gpu: 'L4' }, shared_prefix_tokens: 512 }), expect: 422 });
  const O = '/api/v1/estimates/ownership';
  // Buy or rent: the same GPU only (none offered: found false), with the same work, in EUR.
  const owned = await check('POST', O, { body: { gpu: 'RTX-4090' }, expect: 200 });
  assert.ok(owned.comparisons.some((c) => !c.found), 'a comparison without an offer was checked');
  const work = await check('POST', O, { body: { gpu: 'RTX-4090', gpus: 2, purchase_price: 1500, host_cost: 2000,
    electricity_price_per_kwh: 0.3, utilisation: 0.5, years: 4, resale_fraction: 0.2, maintenance_per_year: 100,
    currency: 'EUR', training: { workload: 'resnet-50', dataset: { samples: 1281167, epochs: 1 }, global_batch_size: 256 } }, expect: 200 });
  assert.ok(work.training && work.comparisons.some((c) => c.found && c.basis === 'same_work'), 'a same-work comparison was checked');
  await check('POST', O, { body: { gpu: 'A10G', purchase_price: 3000 }, expect: 200 });  // offered: found true
  await check('POST', O, { body: { gpu: 'H100-80GB-SXM5' }, expect: 422 });  // no launch price
  await check('POST', O, { body: { gpu: 'RTX-4090', utilisation: 2 }, expect: 422 });
  const R = '/api/v1/recommendations';
  for (const body of [train({ limit: 3 }), train({ limit: 2, constraints: { deadline_hours: 0.01 } }),
    train({ limit: 2, objective: 'balanced', constraints: { clouds: ['gcp'], price_kinds: ['spot'] } }),
    serve({ task: 'inference', limit: 2 }), serve({ task: 'inference', limit: 2, latency_slo_ms: 1000, constraints: { price_kinds: ['spot', 'ondemand'] } }),
    { task: 'inference', workload: 'resnet-50', target_samples_per_s: 100, limit: 2 }]) {
    await check('POST', R, { body, expect: 200 });
  }
  // Decoder items carry their p95 latencies and saturated throughput.
  const served = await check('POST', R, { body: serve({ task: 'inference', limit: 2, ttft_slo_ms: 300, tpot_slo_ms: 60,
    engine: { version: 'v0' }, weight_quantization: 'int4_gptq', kv_cache_dtype: 'fp8', max_concurrency: 16,
    shared_prefix_tokens: 128, constraints: { gpus: ['L4', 'A10G'] } }), expect: 200 });
  assert.ok(served.items.length > 0 && served.items.every((it) => it.latency_p95 && it.saturated_requests_per_s > 0),
    'decoder recommendation items with latency_p95 were checked');
  await check('POST', R, { body: serve({ task: 'inference', engine: { version: 'v2' } }), expect: 422 });
  await check('POST', R, { body: train({ constraints: { gpus: ['H10O'] } }), expect: 422 });
  // Runnable plans: the same requests answered as YAML (application/yaml), and the GET form.
  await check('POST', `${T}?format=skypilot`, { body: train({ hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge' } }), expect: 200 });
  await check('POST', `${T}?format=kubernetes`, { body: train({ hardware: { gpu: 'T4', gpus_per_node: 4 }, pricing: { kind: 'spot' } }), expect: 200 });
  await check('POST', `${T}?format=yaml`, { body: train({ hardware: { gpu: 'T4' } }), expect: 422 });
  await check('POST', `${I}?format=kubernetes`, { body: serve({ hardware: { cloud: 'aws', instance_type: 'g5.xlarge' } }), expect: 200 });
  await check('POST', `${I}?format=skypilot`, { body: serve({ hardware: { cloud: 'aws', instance_type: 'g5.xlarge' } }), expect: 200 });
  const top = await check('POST', `${R}?format=skypilot`, { body: train({ limit: 3 }), expect: 200 });
  assert.match(top, /^resources:\n {2}cloud: /m, 'a SkyPilot task YAML');
  await check('POST', `${R}?format=kubernetes&item=2`, { body: train({ limit: 3 }), expect: 200 });
  await check('POST', `${R}?format=kubernetes&item=5`, { body: train({ limit: 3 }), expect: 422 });
  const E = '/api/v1/plans/export';
  const exportOf = (format, kind, body, extra = '') => `${E}?format=${format}&kind=${kind}&request=${encodeURIComponent(JSON.stringify(body))}${extra}`;
  assert.equal(await check('GET', exportOf('skypilot', 'recommendation', train({ limit: 3 })), { expect: 200 }), top);
  await check('GET', exportOf('kubernetes', 'recommendation', train({ limit: 3 }), '&item=3'), { expect: 200 });
  await check('GET', exportOf('kubernetes', 'training', train({ hardware: { gpu: 'L4' } })), { expect: 200 });
  await check('GET', exportOf('skypilot', 'inference', serve({ hardware: { gpu: 'L4' } })), { expect: 200 });
  await check('GET', `${E}?format=skypilot&kind=training&request=%7Bbad`, { expect: 400 });
  await check('GET', `${E}?format=skypilot&kind=training`, { expect: 422 });
  await check('GET', exportOf('skypilot', 'training', train({ global_batch_size: 0, hardware: { gpu: 'T4' } })), { expect: 422 });
  const C = '/api/v1/compare';
  await check('POST', C, { body: train({ gpus: ['T4', 'H100-80GB-SXM5', 'V100-16GB-SXM2'] }), expect: 200 });
  await check('POST', C, { body: train({ workload: 'llama-2-70b', dataset: { tokens: 1e9 }, gpus: ['T4', 'L4'] }), expect: 200 });
  // A GPU without the precision (an error row) and one without a catalog price (no price_source:
  // the A30; GH200 is rented since the full catalog of issue 27).
  const rows = await check('POST', C, { body: train({ precision: 'bf16', gpus: ['T4', 'H100-80GB-SXM5', 'A30'] }), expect: 200 });
  assert.ok(rows.items.some((r) => r.error), 'an error row was checked');
  assert.ok(rows.items.some((r) => !r.error && r.price_per_gpu_hour === null), 'an unpriced row was checked');
  await check('GET', `${C}?workload=resnet-50&samples=1281167&gpus=T4,L4`, { expect: 200 });

  // Measured runs, reference runs, spot with an on-demand fallback.
  const M = '/api/v1/measurements';
  const run = { workload: 'resnet-50', hardware: { gpu: 'T4' }, global_batch_size: 256, precision: 'fp16', measured: { samples_per_s: 250 }, note: 'contract', measured_on: '2026-11-01' };
  await check('POST', M, { body: run, expect: 401 });
  await check('POST', M, { body: run, auth: true, expect: 201 });
  await check('POST', M, { body: { ...run, measured: { step_time_s: 1.1 }, shared: true }, auth: true, expect: 201 });
  await check('POST', M, { body: { ...run, precision: 'auto' }, auth: true, expect: 422 });
  await check('GET', `${M}?family=cnn&limit=1`, { auth: true, expect: 200 });
  await check('GET', `${M}?cursor=nope`, { auth: true, expect: 422 });
  await check('GET', M, { expect: 401 });
  const calibrated = await check('POST', T, { body: train({ workload: 'resnet-50', hardware: { gpu: 'T4' } }), auth: true, expect: 200 });
  assert.equal(calibrated.calibration.runs, 2, 'the calibration was checked');
  await check('POST', T, { body: { workload: 'bert-large', global_batch_size: 256, reference_run: { hardware: { gpu: 'V100-16GB-SXM2', gpus_per_node: 8 }, hours: 144 }, hardware: { cloud: 'aws', instance_type: 'p4d.24xlarge' } }, expect: 200 });
  await check('POST', T, { body: train({ hardware: { cloud: 'aws', instance_type: 'p3.8xlarge' }, pricing: { kind: 'spot_with_fallback', deadline_hours: 500 } }), expect: 200 });
  await check('POST', T, { body: train({ hardware: { gpu: 'T4' }, pricing: { kind: 'spot_with_fallback' } }), expect: 422 });
  await check('POST', R, { body: train({ limit: 3, constraints: { deadline_hours: 200, price_kinds: ['spot_with_fallback', 'ondemand'] } }), expect: 200 });
  await check('GET', `${C}?workload=resnet-50&samples=-1`, { expect: 422 });

  // Writes.
  const gpu = { id: 'X1', name: 'X1', vendor: 'NVIDIA', memory_gb: 96, memory_bw_gbps: 3000, fp32_tflops: 60, bf16_tflops: 800, fp16_tflops: 800, source: 'contract test' };
  await check('POST', '/api/v1/gpus', { body: gpu, expect: 401 });
  await check('POST', '/api/v1/gpus', { body: gpu, auth: true, expect: 201 });
  await check('POST', '/api/v1/gpus', { body: gpu, auth: true, expect: 409 });
  await check('PUT', '/api/v1/gpus/X1', { body: gpu, auth: true, expect: 200 });
  await check('PUT', '/api/v1/gpus/X2', { body: { ...gpu, id: 'X2' }, auth: true, expect: 201 });
  const type = { cloud: 'aws', instance_type: 'x1.big', gpu: 'X1', gpu_count: 8, vcpus: 96, memory_gib: 1024, interconnect: 'nvswitch', source: 'contract test' };
  await check('POST', '/api/v1/instances', { body: type, auth: true, expect: 201 });
  await check('PUT', '/api/v1/instances/aws/x1.big', { body: type, auth: true, expect: 200 });
  await check('PUT', '/api/v1/instances/aws/x2.big', { body: { ...type, instance_type: 'x2.big' }, auth: true, expect: 201 });
  await check('POST', '/api/v1/prices', { body: { prices: [
    { cloud: 'aws', region: 'us-east-1', instance_type: 'x1.big', kind: 'ondemand', price_per_hour: 30, currency: 'USD' },
    { cloud: 'aws', region: 'us-east-1', zone: 'use1-az1', instance_type: 'x1.big', kind: 'spot', price_per_hour: 12, currency: 'USD' }] }, auth: true, expect: 201 });
  await check('POST', '/api/v1/prices', { body: { prices: [{ cloud: 'aws' }] }, auth: true, expect: 422 });
  await check('DELETE', '/api/v1/instances/aws/x2.big', { auth: true, expect: 204 });
  await check('DELETE', '/api/v1/gpus/X2', { auth: true, expect: 204 });
  await check('DELETE', '/api/v1/gpus/T4', { auth: true, expect: 409 });
  await check('PUT', '/api/v1/fx-rates/JPY', { body: { units_per_usd: 150.2, as_of: '2026-11-01', source: 'test' }, auth: true, expect: 201 });
  await check('PUT', '/api/v1/fx-rates/JPY', { body: { units_per_usd: 151, as_of: '2026-11-02', source: 'test' }, auth: true, expect: 200 });
  await check('PUT', '/api/v1/fx-rates/JPY', { body: { units_per_usd: 151, as_of: 'garbage', source: 'test' }, auth: true, expect: 422 });
  const csv = 'InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n' +
    'Standard_NC24ads_A100_v4,A100-80GB,1,24,220,,3.673,1.4692,eastus,\nBad,A100,8,96,900,,cheap,10,westeurope,\n';
  const imp = '/api/v1/catalog/import';
  await check('POST', `${imp}?format=skypilot&cloud=azure&dry_run=true&partial=true`, { body: csv, contentType: 'text/csv', auth: true, expect: 200 });
  await check('POST', `${imp}?format=skypilot&cloud=azure`, { body: csv, contentType: 'text/csv', auth: true, expect: 422 });
  await check('POST', `${imp}?format=skypilot&cloud=azure&partial=true`, { body: csv, contentType: 'text/csv', auth: true, expect: 201 });
  await check('POST', `${imp}?format=aws-spot-history`, { body: { SpotPriceHistory: [{ AvailabilityZone: 'us-east-1a', InstanceType: 'p4d.24xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: '9.1', Timestamp: '2025-06-01T10:00:00.000Z' }] }, auth: true, expect: 201 });
  // Three recent observations: spot cost from the history (price_basis history, price_history object).
  await check('POST', `${imp}?format=aws-spot-history`, { body: { SpotPriceHistory: ['2026-11-19', '2026-11-20', '2026-11-21'].map((d, i) => ({
    AvailabilityZone: 'us-east-1b', InstanceType: 'p4d.24xlarge', ProductDescription: 'Linux/UNIX', SpotPrice: String(7 + i),
    Timestamp: `${d}T10:00:00.000Z` })) }, auth: true, expect: 201 });
  const history = await check('POST', T, { body: train({ hardware: { cloud: 'aws', region: 'us-east-1', instance_type: 'p4d.24xlarge' },
    pricing: { kind: 'spot' } }), expect: 200 });
  assert.equal(history.cost.spot.price_basis, 'history');
  // Zone names and zone ids in one series: the answer warns.
  await check('GET', '/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&region=us-east-1', { expect: 200 });
  await check('GET', '/api/v1/catalog/export?format=json', { expect: 200 });
  await check('GET', '/api/v1/catalog/export?format=csv', { expect: 200 });
  await check('GET', '/api/v1/catalog/export?format=xml', { expect: 422 });
});

test('every documented operation was exercised, with a success', () => {
  const missing = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'delete']) {
      if (!item[method]) continue;
      const seen = exercised.get(`${method.toUpperCase()} ${template}`);
      if (!seen || ![...seen].some((s) => s < 300)) missing.push(`${method.toUpperCase()} ${template}`);
    }
  }
  assert.deepEqual(missing, []);
});
