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

// Hours as "3.2 h", "2.5 days" or "45 min".
export function hours(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const h = Number(v);
  if (h < 1) return `${num(h * 60, 2)} min`;
  if (h < 48) return `${num(h, 3)} h`;
  return `${num(h / 24, 3)} days`;
}

export function seconds(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return dash;
  const s = Number(v);
  return s < 1 ? `${num(s * 1000, 3)} ms` : `${num(s, 3)} s`;
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
  return t;
}

// Rows of cells (strings or Nodes) appended to a <tbody>.
export function appendRows(body, rows) {
  for (const row of rows) {
    const tr = body.insertRow();
    for (const c of row) {
      const td = tr.insertCell();
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
    }
  }
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

// Assumptions and warnings of an answer, as two titled lists.
export function notes(answer) {
  const box = el('div', { class: 'notes' });
  if (answer.warnings && answer.warnings.length) {
    box.append(el('h3', { text: 'Warnings' }), list(answer.warnings, 'warnings'));
  }
  if (answer.assumptions && answer.assumptions.length) {
    box.append(el('h3', { text: 'Assumptions' }), list(answer.assumptions, 'assumptions'));
  }
  return box;
}
