// Form parts shared by the planning views (workload, dataset, job, hardware, pricing),
// built once per form into its <div data-part="..."> placeholders. Field names are the
// request members they fill (see forms.js).
import { cached, cachedAllPages } from './api.js';

let uid = 0;

// <label>Text <input ...></label> with an id, so labels and focus order are the DOM's.
export function field(text, attrs, help) {
  const label = document.createElement('label');
  const id = `f${++uid}`;
  label.htmlFor = id;
  label.append(text);
  const tag = attrs.tag || 'input';
  const input = document.createElement(tag);
  input.id = id;
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'tag' || k === 'options') continue;
    input.setAttribute(k, v);
  }
  for (const [value, shown] of attrs.options || []) input.add(new Option(shown, value));
  label.append(input);
  if (help) {
    const small = document.createElement('small');
    small.textContent = help;
    label.append(small);
  }
  return label;
}

// A set of radio buttons choosing between alternatives (fieldsets with data-when).
function choice(legendText, name, options) {
  const set = document.createElement('fieldset');
  set.className = 'choice';
  const legend = document.createElement('legend');
  legend.textContent = legendText;
  set.append(legend);
  options.forEach(([value, text], i) => {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = name;
    input.value = value;
    if (i === 0) input.checked = input.defaultChecked = true;  // the default a link that omits it restores
    label.append(input, ` ${text}`);
    set.append(label);
  });
  return set;
}

function group(when, ...children) {
  const set = document.createElement('fieldset');
  set.className = 'group';
  if (when) set.dataset.when = when;
  set.append(...children);
  return set;
}

function fillSelect(select, items, value, text, keepFirst = true) {
  const current = select.value;
  const first = keepFirst && select.options.length ? [select.options[0]] : [];
  select.replaceChildren(...first);
  for (const it of items) select.add(new Option(text(it), value(it)));
  if ([...select.options].some((o) => o.value === current)) select.value = current;
}

// A GPU list filled from the catalog, `byDefault` chosen unless the URL named another.
export function gpuList(select, byDefault) {
  select.dataset.default = byDefault;
  cached('/api/v1/gpus').then((answer) => {
    fillSelect(select, answer.items, (g) => g.id, (g) => `${g.id} (${g.memory_gb} GB)`, false);
    if (!select.dataset.restored) select.value = select.dataset.default;
  }).catch(() => {});
}

const precisionOptions = [['auto', 'auto (bf16 where supported, else fp16)'], ['bf16', 'bf16'],
  ['fp16', 'fp16'], ['tf32', 'tf32'], ['fp32', 'fp32'], ['fp8', 'fp8']];
// Training only (serving refuses it): 4-bit projections on GPUs with an FP4 rate.
const trainingPrecisionOptions = [...precisionOptions, ['nvfp4', 'nvfp4 (Blackwell)']];

// The training layout and low-precision recipe as frameworks publish them, folded away: a
// field left empty is the server's choice (the layout search, or the stack's default).
function layoutAndRecipe() {
  const degree = (text, name, help, max) => field(text, { name, type: 'number', min: 1, max }, help);
  const box = document.createElement('details');
  box.className = 'options';
  const summary = document.createElement('summary');
  summary.textContent = 'Layout and low-precision recipe (optional)';
  box.append(summary, group(null,
    degree('Tensor parallel', 'tensor_parallel', 'empty: chosen', 64),
    degree('Pipeline stages', 'pipeline_parallel', 'empty: chosen', 1024),
    degree('Context parallel', 'context_parallel', 'empty: searched from 16K tokens', 1024),
    degree('Interleaved stages per GPU', 'virtual_pipeline_stages', 'empty: plain 1F1B', 128),
    field('ZeRO stage', { tag: 'select', name: 'zero_stage', 'data-kind': 'number',
      options: [['', 'chosen'], ['0', '0: replicated'], ['1', '1: optimizer states (distributed optimizer)'],
        ['2', '2: and gradients'], ['3', '3: and weights (FSDP)']] }),
    field('Sequence parallel', { tag: 'select', name: 'sequence_parallel', 'data-kind': 'boolean',
      options: [['', 'stack default (optimized: on with tensor parallel)'], ['true', 'on'], ['false', 'off']] }),
    field('Overlap tensor-parallel collectives', { type: 'checkbox', name: 'tensor_parallel_overlap', value: 'true', 'data-kind': 'boolean' }),
    field('Activation checkpointing', { tag: 'select', name: 'activation_checkpointing',
      options: [['', 'server default (none)'], ['none', 'none'], ['selective', 'selective'], ['full', 'full']] }),
    field('FP8 scaling', { tag: 'select', name: 'fp8_scaling',
      options: [['', 'server default (delayed)'], ['delayed', 'delayed (per tensor)'], ['current', 'current (per tensor)'],
        ['mxfp8', 'mxfp8 blocks (Blackwell)']] }, 'precision fp8 only')));
  return box;
}

export const parts = {
  // Preset or inline shape.
  workload({ defaultPreset = 'bert-large', family } = {}) {
    const preset = field('Preset', { tag: 'select', name: 'workload', 'data-preset': '' });
    const wrap = document.createElement('div');
    wrap.append(
      choice('Workload', '_workload', [['preset', 'preset'], ['shape', 'own shape']]),
      group('_workload=preset', preset),
      group('_workload=shape',
        field('Family', { tag: 'select', name: 'workload.family',
          options: [['decoder', 'decoder (GPT, Llama)'], ['encoder', 'encoder (BERT)'], ['moe', 'mixture of experts'],
            ['vit', 'vision transformer'], ['encoder_decoder', 'encoder-decoder'], ['cnn', 'CNN'], ['rnn', 'RNN']] }),
        field('Parameters', { name: 'workload.params', 'data-kind': 'number', inputmode: 'decimal', placeholder: 'e.g. 6.7e9' }),
        field('Layers', { name: 'workload.layers', type: 'number', min: 1 }),
        field('Hidden size', { name: 'workload.hidden', type: 'number', min: 1 }),
        field('Heads', { name: 'workload.heads', type: 'number', min: 1 }),
        field('Sequence length', { name: 'workload.seq_len', type: 'number', min: 1 }),
        field('Vocabulary', { name: 'workload.vocab', type: 'number', min: 1 }),
        field('MACs per sample (CNN)', { name: 'workload.macs_per_sample', 'data-kind': 'number', inputmode: 'decimal' }),
        field('Activation elements per sample (CNN)', { name: 'workload.activation_elements_per_sample', 'data-kind': 'number', inputmode: 'decimal' }),
        field('Image size (CNN, ViT)', { name: 'workload.image_size', type: 'number', min: 1 })),
    );
    const select = preset.querySelector('select');
    select.dataset.default = defaultPreset;
    cached('/api/v1/workloads').then((answer) => {
      const items = answer.items.filter((w) => !family || family.includes(w.family));
      fillSelect(select, items, (w) => w.id, (w) => `${w.name} (${w.family})`, false);
      if (!select.dataset.restored) select.value = select.dataset.default;
      select.dispatchEvent(new Event('workloads-loaded', { bubbles: true }));
    }).catch(() => {});
    return wrap;
  },

  // Samples x epochs, tokens, a job duration, or a reference run ("the paper trained 6 days
  // on 8 × V100": the work is what that hardware does in that time).
  dataset() {
    const wrap = document.createElement('div');
    const refGpu = field('Reference GPU', { tag: 'select', name: 'reference_run.hardware.gpu' });
    wrap.append(
      choice('Dataset', '_dataset', [['samples', 'samples × epochs'], ['tokens', 'tokens'], ['hours', 'job duration'],
        ['reference', 'a reference run']]),
      group('_dataset=samples',
        field('Samples per epoch', { name: 'dataset.samples', 'data-kind': 'number', inputmode: 'decimal', value: '10000000' }),
        field('Epochs', { name: 'dataset.epochs', 'data-kind': 'number', inputmode: 'decimal', value: '1' })),
      group('_dataset=tokens',
        field('Tokens', { name: 'dataset.tokens', 'data-kind': 'number', inputmode: 'decimal', value: '1e10' })),
      group('_dataset=hours',
        field('Hours of training', { name: 'dataset.hours', 'data-kind': 'number', inputmode: 'decimal', value: '24' },
          'what that time processes is estimated')),
      group('_dataset=reference', refGpu,
        field('GPUs per node', { name: 'reference_run.hardware.gpus_per_node', type: 'number', min: 1, value: '8' }),
        field('Nodes', { name: 'reference_run.hardware.nodes', type: 'number', min: 1, value: '1' }),
        field('Hours it trained', { name: 'reference_run.hours', 'data-kind': 'number', inputmode: 'decimal', value: '144' },
          'e.g. 6 days = 144'),
        field('Its precision', { tag: 'select', name: 'reference_run.precision',
          options: [['', 'auto on that GPU'], ...trainingPrecisionOptions.slice(1)] })),
    );
    gpuList(refGpu.querySelector('select'), 'V100-16GB-SXM2');
    return wrap;
  },

  // Global batch and precision (training); optimizer and framework.
  job({ batch = true } = {}) {
    const wrap = group(null,
      field('Precision', { tag: 'select', name: 'precision',
        options: batch ? trainingPrecisionOptions : precisionOptions }));
    if (!batch) return wrap;
    wrap.prepend(field('Global batch size', { name: 'global_batch_size', type: 'number', min: 1, value: '256' }));
    wrap.append(
      field('Micro-batch (optional)', { name: 'micro_batch_size', type: 'number', min: 1 }),
      // Not sent by default: the server's default (auto, current practice, on servers
      // that have it) is what a new user gets; eager and optimized stay explicit choices.
      field('Framework', { tag: 'select', name: 'framework',
        options: [['', 'server default (auto)'], ['eager', 'eager PyTorch'], ['optimized', 'optimized (fused, FlashAttention)']] }));
    const both = document.createDocumentFragment();  // the layout folds away beside the job
    both.append(wrap, layoutAndRecipe());
    return both;
  },

  // A catalog instance or a GPU.
  hardware() {
    const cloud = field('Cloud', { tag: 'select', name: 'hardware.cloud' });
    const region = field('Region (optional: cheapest)', { tag: 'select', name: 'hardware.region', options: [['', 'cheapest']] });
    const type = field('Instance type', { name: 'hardware.instance_type', list: `types-${uid + 1}`, value: 'p4d.24xlarge', autocomplete: 'off' });
    const datalist = document.createElement('datalist');
    datalist.id = type.querySelector('input').getAttribute('list');
    const gpu = field('GPU', { tag: 'select', name: 'hardware.gpu' });
    const wrap = document.createElement('div');
    wrap.append(
      choice('Hardware', '_hardware', [['instance', 'catalog instance'], ['gpu', 'a GPU']]),
      group('_hardware=instance', cloud, region, type, datalist,
        field('Instances (nodes)', { name: 'hardware.nodes', type: 'number', min: 1, value: '1' })),
      group('_hardware=gpu', gpu,
        field('GPUs per node', { name: 'hardware.gpus_per_node', type: 'number', min: 1, value: '1' }),
        field('Nodes', { name: 'hardware.nodes', type: 'number', min: 1, value: '1' }),
        field('On-demand price per node-hour (optional)', { name: 'hardware.price_per_hour', 'data-kind': 'number', inputmode: 'decimal' }),
        field('Spot price per node-hour (optional)', { name: 'hardware.spot_price_per_hour', 'data-kind': 'number', inputmode: 'decimal' })),
    );
    const cloudSelect = cloud.querySelector('select');
    cloudSelect.dataset.default = 'aws';
    const regionSelect = region.querySelector('select');
    const loadCloud = async () => {
      const c = cloudSelect.value;
      if (!c) return;
      const [regions, types] = await Promise.all([
        cached(`/api/v1/regions?cloud=${encodeURIComponent(c)}`),
        cachedAllPages(`/api/v1/instances?cloud=${encodeURIComponent(c)}&limit=500&sort=gpu_count`)]);
      if (cloudSelect.value !== c) return;  // another cloud was chosen meanwhile: its load fills the lists
      fillSelect(regionSelect, regions.items, (r) => r.id, (r) => `${r.id} (${r.display_name})`);
      const seen = new Set();
      datalist.replaceChildren();
      for (const it of types.items) {
        if (seen.has(it.instance_type)) continue;
        seen.add(it.instance_type);
        datalist.append(new Option(`${it.gpu_count} × ${it.gpu}`, it.instance_type));
      }
    };
    for (const event of ['change', 'restore']) cloudSelect.addEventListener(event, () => loadCloud().catch(() => {}));
    cached('/api/v1/clouds').then((answer) => {
      fillSelect(cloudSelect, answer.items, (c) => c.id, (c) => c.name, false);
      if (!cloudSelect.dataset.restored) cloudSelect.value = cloudSelect.dataset.default;
      return loadCloud();
    }).catch(() => {});
    gpuList(gpu.querySelector('select'), 'A100-80GB-SXM4');
    return wrap;
  },

  // Price kinds and the spot interruption model.
  pricing({ training = true } = {}) {
    const kinds = [['both', 'on-demand and spot'], ['ondemand', 'on-demand'], ['spot', 'spot']];
    if (training) kinds.push(['spot_with_fallback', 'spot with on-demand fallback (needs a deadline)']);
    const set = group(null, field('Price', { tag: 'select', name: 'pricing.kind', options: kinds }));
    if (training) {
      set.append(
        group('pricing.kind=spot_with_fallback',
          field('Deadline (hours)', { name: 'pricing.deadline_hours', 'data-kind': 'number', inputmode: 'decimal', value: '48' },
            'moves to on-demand in time to finish by it (P90)')),
        field('Checkpoint every (minutes, optional)', { name: 'pricing.checkpoint_interval_minutes', 'data-kind': 'number', inputmode: 'decimal' },
          'default: the optimum for the interruption rate'),
        field('Spot interruptions per hour (optional)', { name: 'pricing.interruption_rate_per_hour', 'data-kind': 'number', inputmode: 'decimal' }));
    }
    set.append(field('Currency', { tag: 'select', name: 'currency', 'data-currency': '', options: [['USD', 'USD']] }));
    return set;
  },
};

// Fills every currency list of the page from the exchange-rate table.
export async function loadCurrencies(root) {
  const answer = await cached('/api/v1/fx-rates');
  const codes = ['USD', ...answer.items.map((r) => r.currency).filter((c) => c !== 'USD')];
  for (const select of root.querySelectorAll('select[data-currency]')) {
    const keep = select.value;
    const first = select.dataset.currency === 'native' ? [new Option('each offer\'s own', '')] : [];
    select.replaceChildren(...first, ...codes.map((c) => new Option(c, c)));
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }
}

// Builds the parts named by a form's placeholders (and fills their currency lists).
export function buildParts(form, options = {}) {
  for (const slot of form.querySelectorAll('[data-part]')) {
    const make = parts[slot.dataset.part];
    slot.replaceWith(make(options[slot.dataset.part] || {}));
  }
  loadCurrencies(form).catch(() => {});
}
