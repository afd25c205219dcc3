// Number and text formatting for the views. Missing values show as an em dash.

const dash = '—';

export function num(v, digits = 3) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const x = Number(v);
  if (x !== 0 && (Math.abs(x) >= 1e7 || Math.abs(x) < 1e-3)) return x.toExponential(2);
  return x.toLocaleString('en-US', { maximumSignificantDigits: Math.max(digits, 1) });
}

export function int(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  return Math.round(Number(v)).toLocaleString('en-US');
}

export function money(v, currency = '') {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const x = Number(v);
  const digits = Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 1 ? 2 : 4;
  const text = x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return currency ? `${text} ${currency}` : text;
}

// Hours as a reader says them: "45 min" under an hour, "6.6 h" under two days, "3 d 4 h"
// from two days on (whole hours). The one duration format of the tables and status lines.
export function hours(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const h = Number(v);
  if (h * 60 < 59.5) {
    const m = h * 60;
    return `${m >= 10 ? Math.round(m) : Number(m.toPrecision(2))} min`;
  }
  if (h < 48) return `${Number(h.toFixed(1)).toLocaleString('en-US')} h`;
  const whole = Math.round(h);
  const days = Math.floor(whole / 24);
  const rest = whole % 24;
  return rest ? `${days.toLocaleString('en-US')} d ${rest} h` : `${days.toLocaleString('en-US')} d`;
}

// The one unit for a chart axis of durations, by its largest value: given in hours
// (`from: 'hours'`, the default) minutes under an hour, days from two days on, else hours;
// given in seconds (`from: 'seconds'`, step and latency terms) also ms under a second and
// seconds under two minutes. Returns {unit, scale(value) -> value in unit}; null stays null
// (no bar). The tables' text for the same values is seconds() or hours().
const axisUnits = [['ms', 1e-3, 1], ['seconds', 1, 120], ['minutes', 60, 3600], ['hours', 3600, 48 * 3600],
  ['days', 86400, Infinity]];
export function durationAxis(values, { from = 'hours' } = {}) {
  const perInput = from === 'seconds' ? 1 : 3600;
  const finite = values.filter((v) => v !== null && v !== undefined && Number.isFinite(Number(v))).map(Number);
  const most = (finite.length ? Math.max(...finite) : 0) * perInput;
  const usable = from === 'seconds' ? axisUnits : axisUnits.slice(2);
  const [unit, per] = most === 0 && from !== 'seconds' ? ['hours', 3600]
    : usable.find(([, , below]) => most < below) || usable[usable.length - 1];
  return { unit, scale: (v) => (v === null || v === undefined || !Number.isFinite(Number(v)) ? null : Number(v) * perInput / per) };
}

// Seconds as a reader says them: "4.06 µs" under a millisecond, "850 ms" under a second,
// "76.6 s" under a minute, then as hours() says them ("1.3 min", "2.5 h"): never
// "76,600 ms" or "0.00406 ms".
export function seconds(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const s = Number(v);
  if (s > 0 && s < 1e-3) return `${num(s * 1e6, 3)} µs`;
  if (s < 1) return `${num(s * 1000, 3)} ms`;
  if (s < 60) return `${num(s, 3)} s`;
  return hours(s / 3600);
}

// A count in words a reader scans: "259 million", "4.2 billion", "12,800" (3 significant digits).
export function count(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const x = Number(v);
  const scales = [[1e12, 'trillion'], [1e9, 'billion'], [1e6, 'million']];
  const [div, word] = scales.find(([d]) => Math.abs(x) >= d) || [1, ''];
  const digits = (x / div).toLocaleString('en-US', { maximumSignificantDigits: 3 });
  return word ? `${digits} ${word}` : digits;
}

export function pct(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  return `${num(Number(v) * 100, 3)} %`;
}

// A table from rows of cells; `cells` are strings or Nodes. Returns the <table>.
export function table(headers, rows, caption) {
  const t = document.createElement('table');
  if (caption) t.createCaption().textContent = caption;
  const head = t.createTHead().insertRow();
  for (const h of headers) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = h;
    head.appendChild(th);
  }
  appendRows(t.createTBody(), rows);
  labelCells(t);
  return t;
}

// Names each body cell by its column's header (data-label), so a table shown as cards on a
// phone (table.cards, style.css) labels every figure; the cell of the `name` header (what the
// row is) heads the card, and cells of the `key` headers (price, cost, time) follow it.
// Cells spanning columns count as their span.
export function labelCells(t, key = [], name = null) {
  const headers = [...(t.tHead?.rows[0]?.cells || [])].map((th) => th.textContent.replace(/[▲▼↕]/g, '').trim());
  for (const body of t.tBodies) {
    for (const tr of body.rows) {
      let col = 0;
      for (const td of tr.cells) {
        td.dataset.label = headers[col] ?? '';
        if (key.includes(headers[col])) td.classList.add('key');
        if (headers[col] === name) td.classList.add('name');
        col += td.colSpan || 1;
      }
    }
  }
}

// Shows `t` as cards on a phone, headed by the `name` column, `key` headers next (see
// labelCells).
export function cards(t, key = [], name = null) {
  t.classList.add('cards');
  labelCells(t, key, name);
  return t;
}

// Rows of cells appended to a <tbody>. A cell is a string, a Node, or {text, span, class}
// (one cell spanning `span` columns, e.g. a verdict in place of the figures). A row may carry
// `rowClass` (a property of the row's array) for its <tr>.
export function appendRows(body, rows) {
  for (const row of rows) {
    const tr = body.insertRow();
    if (row.rowClass) tr.className = row.rowClass;
    for (const c of row) {
      const td = tr.insertCell();
      if (c instanceof Node) {
        td.appendChild(c);
      } else if (c && typeof c === 'object') {
        if (c.span > 1) td.colSpan = c.span;
        if (c.class) td.className = c.class;
        td.textContent = c.text;
      } else {
        td.textContent = c;
      }
    }
  }
}

// A table in a box that scrolls sideways when it is wider than the screen: focusable (so a
// keyboard can scroll it) and named by the table's caption.
export function scroller(t, name) {
  const label = name || t.caption?.textContent || 'Table';
  return el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': `${label} (scrolls sideways)` }, t);
}

// <dl> of label/value pairs.
export function facts(pairs) {
  const dl = document.createElement('dl');
  dl.className = 'facts';
  for (const [k, v] of pairs) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    if (v instanceof Node) dd.appendChild(v); else dd.textContent = v;
    dl.append(dt, dd);
  }
  return dl;
}

export function list(items, className) {
  const ul = document.createElement('ul');
  if (className) ul.className = className;
  for (const s of items || []) {
    const li = document.createElement('li');
    li.textContent = s;
    ul.appendChild(li);
  }
  return ul;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

// The warnings and assumptions of an answer, the same way in every view: warnings in a
// prominent titled box (div.warnings), assumptions in a collapsible list
// (details.assumptions, "Assumptions (n)"). Missing or empty lists show nothing.
export function notes({ warnings, assumptions } = {}) {
  const box = el('div', { class: 'notes' });
  const w = (Array.isArray(warnings) ? warnings : []).filter((s) => typeof s === 'string' && s !== '');
  const a = (Array.isArray(assumptions) ? assumptions : []).filter((s) => typeof s === 'string' && s !== '');
  if (w.length) {
    box.append(el('div', { class: 'warnings', role: 'note', 'aria-label': 'Warnings' },
      el('h3', { text: `Warnings (${w.length})` }), list(w)));
  }
  if (a.length) {
    box.append(el('details', { class: 'assumptions' },
      el('summary', { text: `Assumptions (${a.length})` }), list(a)));
  }
  return box;
}
