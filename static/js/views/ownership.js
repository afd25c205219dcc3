// "Own or rent" on a GPU's page: what owning the GPU costs per GPU-hour used, and after how
// many months buying it pays off against renting the same GPU, or the cheapest option that
// trains a workload as fast (POST /api/v1/estimates/ownership). The form is local to the
// page (not in the URL); problems show beside their fields like every other form.
import { ApiError, cached, api, Latest } from '../api.js';
import { cards, el, facts, hours, money, notes, num, scroller, table } from '../format.js';
import { clearErrors, formToBody, showProblem } from '../forms.js';
import { field, loadCurrencies } from '../parts.js';

const decimal = (name, value = '', extra = {}) =>
  ({ name, 'data-kind': 'number', inputmode: 'decimal', value, size: 8, ...extra });

// Break-even months as shown: one decimal, or why there is none.
export function breakEvenText(c) {
  if (!c.found) return '—';
  return c.break_even_months === null ? 'never' : num(c.break_even_months, 3);
}

function comparisonRows(answer) {
  const kind = { ondemand: 'on-demand', spot: 'spot' };
  const basis = { same_gpu: 'same GPU', same_work: 'same work' };
  return answer.comparisons.map((c) => [
    `${basis[c.basis]}, ${kind[c.price_kind]}`,
    c.found ? `${c.instances}× ${c.cloud} ${c.instance_type} (${c.total_gpus}× ${c.gpu}), ${c.region}` : c.note,
    money(c.price_per_gpu_hour), money(c.rent_per_month), money(c.savings_per_month), breakEvenText(c)]);
}

function renderAnswer(answer) {
  const cur = answer.currency;
  const pairs = [
    ['Owned cost per GPU-hour', money(answer.cost_per_gpu_hour, cur)],
    ['Purchase (capital)', money(answer.capital, cur)],
    ['Per month: capital', money(answer.per_month.capital, cur)],
    ['Per month: power', money(answer.per_month.power, cur)],
    ['Per month: running (power + maintenance)', money(answer.per_month.running, cur)],
    ['Hours used a month', num(answer.hours_used_per_month)],
  ];
  if (answer.training) {
    pairs.push([`Owned: ${answer.training.workload}`,
      `${num(answer.training.samples_per_s)} samples/s, ${hours(answer.training.hours_per_job)} per job`]);
  }
  const summary = facts(pairs);
  summary.id = 'ownership-summary';
  const t = table(['Rent', 'Cheapest option', `Per GPU-hour (${cur})`, `Rent a month (${cur})`,
    `Saved a month (${cur})`, 'Break-even (months)'], comparisonRows(answer), 'Buying against renting');
  t.id = 'ownership-comparisons';
  cards(t, ['Break-even (months)', `Saved a month (${cur})`, `Rent a month (${cur})`], 'Rent');
  return [summary, scroller(t), notes(answer)];
}

const defaultWorkload = 'resnet-50';

// Keeps the amounts the form asks in the chosen currency: each field's label names it, and a
// field still holding its USD default takes that default converted at the API's rate (a
// figure the user typed is left as typed). `fields`: [label, usd default or null, text, unit].
function convertOnCurrency(select, fields) {
  const shown = fields.map(([label, usd]) => ({ label, usd, value: usd === null ? '' : String(usd) }));
  select.addEventListener('change', async () => {
    const code = select.value;
    const rates = await cached('/api/v1/fx-rates');
    const rate = code === 'USD' ? 1 : rates.items.find((r) => r.currency === code)?.units_per_usd;
    if (!Number.isFinite(rate)) return;
    fields.forEach(([label, usd, text, unit = ''], i) => {
      label.firstChild.textContent = `${text} (${code}${unit ? ` ${unit}` : ''})`;
      const input = label.querySelector('input');
      if (usd === null || input.value !== shown[i].value) return;  // typed by the user
      shown[i].value = String(Number((usd * rate).toPrecision(4)));
      input.value = shown[i].value;
    });
  });
}

// The panel for GPU `g` (a /api/v1/gpus/{id} answer).
export function ownershipPanel(g) {
  const section = el('div', { class: 'ownership', role: 'region', 'aria-labelledby': 'ownership-title' },
    el('h3', { id: 'ownership-title', text: 'Own or rent' }));
  const form = el('form', { id: 'ownership-form', class: 'plan', 'aria-label': 'Own or rent' });
  const known = g.launch_price_usd !== null && g.launch_price_usd !== undefined;
  const workload = field('Workload (optional)', { tag: 'select', name: 'training.workload' },
    'compares the cheapest rented option that trains it as fast');
  const select = workload.querySelector('select');
  select.add(new Option('none: the same GPU only', ''));
  // A default workload, so that a first look shows the cheapest option as fast and its
  // break-even (ResNet-50 on an ImageNet epoch trains on every GPU of the catalog).
  select.add(new Option('ResNet-50 (cnn)', defaultWorkload, true, true));
  const job = el('fieldset', { class: 'group' },
    field('Samples per job', decimal('training.dataset.samples', '1281167')),
    field('Global batch', decimal('training.global_batch_size', '256')));
  const toggle = () => { job.disabled = select.value === ''; };
  select.addEventListener('change', toggle);
  toggle();
  cached('/api/v1/workloads').then((answer) => {
    const chosen = select.value;
    select.replaceChildren(select.options[0]);
    for (const w of answer.items) select.add(new Option(`${w.name} (${w.family})`, w.id));
    select.value = chosen;
    toggle();
  }).catch(() => {});
  const gpu = el('input', { type: 'hidden', name: 'gpu', value: g.id });
  const currency = field('Currency', { tag: 'select', name: 'currency', 'data-currency': '', options: [['USD', 'USD']] },
    'of every amount, asked and answered');
  const price = field('Purchase price per GPU (USD)', decimal('purchase_price', known ? String(g.launch_price_usd) : ''),
    known ? `catalog launch price ${money(g.launch_price_usd)} USD` : 'no launch price in the catalog: enter one');
  const power = field('Electricity (USD per kWh)', decimal('electricity_price_per_kwh', '0.15'));
  loadCurrencies(currency).catch(() => {});
  convertOnCurrency(currency.querySelector('select'), [[price, known ? g.launch_price_usd : null, 'Purchase price per GPU'],
    [power, 0.15, 'Electricity', 'per kWh']]);
  form.append(
    el('p', { class: 'form-error', role: 'alert', hidden: '' }),
    gpu,
    el('fieldset', { class: 'group' },
      currency,
      price,
      field('GPUs', decimal('gpus', '1')),
      power,
      field('Utilisation (0–1)', decimal('utilisation', '1')),
      field('Years of use', decimal('years', '3'))),
    el('fieldset', { class: 'group' }, workload),
    job,
    el('button', { type: 'submit', text: 'Compare' }));
  const status = el('p', { class: 'ownership-status', role: 'status', 'aria-live': 'polite' });
  const result = el('div', { class: 'ownership-result' });
  const latest = new Latest();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    status.textContent = 'Working…';
    let answer;
    try {
      answer = await latest.run((signal) => api('/api/v1/estimates/ownership',
        { method: 'POST', body: formToBody(form), signal }));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      result.replaceChildren();
      showProblem(form, err);
      status.textContent = 'The request was not accepted: see the form.';
      return;
    }
    if (answer === undefined) return;  // superseded
    result.replaceChildren(...renderAnswer(answer));
    status.textContent = `Owned: ${money(answer.cost_per_gpu_hour, answer.currency)} per GPU-hour.`;
  });
  section.append(form, status, result);
  return section;
}
