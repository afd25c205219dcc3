// Measured runs: record a run someone timed (a form, or a CSV of runs), list the runs the
// kept API key may use (its own and shared ones). The runs calibrate training estimates of
// their GPU and workload family (the Estimate view shows the calibration). Recording and
// listing need an API key of write scope: it is kept in sessionStorage (api.js apiKey),
// sent as an Authorization header, and never written into the URL (its field has no name).
import { api, apiKey, ApiError } from '../api.js';
import { applyAlternatives, clearErrors, formToBody, showProblem } from '../forms.js';
import { el, int, num, scroller, table } from '../format.js';
import { buildParts, gpuList } from '../parts.js';

// RFC 4180 CSV: rows of cells (quoted cells may hold commas, quotes as "" and line breaks).
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        ++i;
      } else if (ch === '"') {
        quoted = false;
      } else {
        cell += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') ++i;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else {
      cell += ch;
    }
  }
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows.filter((r) => r.some((c) => c.trim() !== ''));
}

const measuredColumns = ['samples_per_s', 'tokens_per_s', 'step_time_s'];

// One CSV record (by header name, the columns of `gpuplan measurements import`) as the body
// of POST /api/v1/measurements; empty cells are left out, so the API names what is missing.
export function csvRunBody(rec) {
  const has = (k) => rec[k] !== undefined && rec[k].trim() !== '';
  const number = (k) => (Number.isFinite(Number(rec[k])) ? Number(rec[k]) : rec[k]);
  const hardware = {};
  if (has('gpu')) hardware.gpu = rec.gpu.trim();
  if (has('cloud')) hardware.cloud = rec.cloud.trim();
  if (has('instance_type')) hardware.instance_type = rec.instance_type.trim();
  for (const k of ['gpus_per_node', 'nodes']) if (has(k)) hardware[k] = number(k);
  const body = { workload: rec.workload?.trim(), hardware, measured: {} };
  for (const k of ['global_batch_size', 'micro_batch_size']) if (has(k)) body[k] = number(k);
  for (const k of ['precision', 'framework', 'measured_on', 'note']) if (has(k)) body[k] = rec[k].trim();
  for (const k of measuredColumns) if (has(k)) body.measured[k] = number(k);
  if (has('shared')) body.shared = /^(true|1|yes)$/i.test(rec.shared.trim());
  return body;
}

// The runs as a table: what ran and what it measured.
function runsTable(items) {
  const measured = (m) => Object.entries(m.measured || {}).map(([k, v]) => `${num(v)} ${k.replace(/_per_s$/, '/s').replace(/_s$/, ' s')}`).join(', ');
  const t = table(['#', 'Workload', 'Hardware', 'Precision', 'Global batch', 'Measured', 'Samples/s', 'Measured on', 'Shared', 'Note'],
    items.map((m) => [String(m.id), m.workload, m.instance_type ? `${m.cloud}/${m.instance_type}` : `${m.nodes > 1 ? `${m.nodes} × ` : ''}${m.gpus_per_node} × ${m.gpu}`,
      m.precision, int(m.global_batch_size), measured(m), num(m.samples_per_s), m.measured_on, m.shared ? 'yes' : 'no', m.note || '']),
    `Measured runs this key may use (${items.length})`);
  t.id = 'runs-list';
  return scroller(t);
}

// What one recorded run says: measured against predicted.
const recordedText = (m) => `Recorded run #${m.id}: ${num(m.samples_per_s)} samples/s measured, ` +
  `${num(m.predicted_samples_per_s)} predicted (measured/predicted ${num(m.measured_over_predicted, 3)}).`;

function keyText() {
  const key = apiKey.get();
  return key ? `A key is kept for this tab (…${key.slice(-4)}).` : 'No key: give one of write scope (gpuplan keys create) to record and list runs.';
}

export const runsView = {
  init(section) {
    const form = section.querySelector('#runs-form');
    const status = section.querySelector('.status');
    const keyForm = section.querySelector('#key-form');
    const keyStatus = section.querySelector('#key-status');
    buildParts(form);
    gpuList(form.elements['hardware.gpu'], 'A100-80GB-SXM4');
    form.addEventListener('change', () => applyAlternatives(form));
    applyAlternatives(form);
    const refresh = () => this.list(section).catch(() => {});
    keyForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const input = keyForm.querySelector('input');
      apiKey.set(input.value.trim());
      input.value = '';
      keyStatus.textContent = keyText();
      refresh();
    });
    section.querySelector('#m-forget').addEventListener('click', () => {
      apiKey.set('');
      keyStatus.textContent = keyText();
      refresh();
    });
    keyStatus.textContent = keyText();
    form.addEventListener('submit', async (event) => {
      event.preventDefault();  // a write: never put in the URL, never run again by a link
      clearErrors(form);
      status.textContent = 'Recording…';
      try {
        const run = await api('/api/v1/measurements', { method: 'POST', body: formToBody(form), auth: true });
        status.textContent = recordedText(run);
        refresh();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        showProblem(form, err);
        status.textContent = 'The run was not recorded: see the form.';
      }
    });
    const upload = section.querySelector('#runs-upload');
    upload.addEventListener('submit', async (event) => {
      event.preventDefault();
      const file = upload.elements.file.files[0];
      if (!file) return;
      status.textContent = `Recording the runs of ${file.name}…`;
      const outcome = await this.upload(await file.text());
      const out = section.querySelector('#runs-upload-result');
      out.replaceChildren(outcome.table);
      status.textContent = `${outcome.recorded} of ${outcome.total} run(s) recorded from ${file.name}` +
        (outcome.total > outcome.recorded ? '; the others are listed with why.' : '.');
      refresh();
    });
  },

  // Records each CSV row (one POST each, in order); returns {total, recorded, table}.
  async upload(text) {
    const [header, ...rows] = parseCsv(text);
    const names = (header || []).map((h) => h.trim());
    const lines = [];
    let recorded = 0;
    for (const [i, cells] of rows.entries()) {
      const rec = Object.fromEntries(names.map((n, j) => [n, cells[j] ?? '']));
      try {
        const run = await api('/api/v1/measurements', { method: 'POST', body: csvRunBody(rec), auth: true });
        recorded += 1;
        lines.push([String(i + 2), `recorded #${run.id}`, `${num(run.samples_per_s)} measured, ${num(run.predicted_samples_per_s)} predicted`]);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const why = (err.problem.errors || []).map((e) => `${e.pointer ?? e.parameter ?? ''} ${e.detail}`.trim()).join('; ');
        lines.push([String(i + 2), 'not recorded', why || err.message]);
      }
    }
    const t = table(['Line', 'Outcome', 'Detail'], lines, 'Uploaded runs');
    t.id = 'runs-upload-lines';
    return { total: rows.length, recorded, table: scroller(t) };
  },

  // Shows the runs the kept key may use (nothing without a key).
  async list(section) {
    const result = section.querySelector('.result');
    if (!apiKey.get()) {
      result.replaceChildren(el('p', { class: 'empty', text: 'Give an API key to list the runs it may use.' }));
      return;
    }
    try {
      const answer = await api('/api/v1/measurements?limit=100', { auth: true });
      result.replaceChildren(runsTable(answer.items),
        ...(answer.next_cursor ? [el('p', { class: 'source', text: 'The 100 most recent runs are shown.' })] : []));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      result.replaceChildren(el('p', { class: 'form-error', role: 'alert', text: `${err.problem.title || 'Error'}: ${err.message}` }));
    }
  },

  show(section) {
    this.list(section).catch(() => {});
  },
};
