// Forms as the single source of a request: a form's state goes to and from the URL (so a
// link restores it), becomes the JSON body or query of its request, and shows the API's
// problem answers beside the fields their pointers name.
//
// Conventions in the HTML: a field's `name` is the dotted path of the request member it
// fills (`dataset.samples`, `hardware.gpu`); names starting with `_` are UI-only (which
// alternative is chosen) and never sent; `data-kind="number"` (or type=number) sends a
// number, `data-kind="list"` a comma-separated list as an array, `data-kind="boolean"` (a
// checkbox of value "true") true. Lists filled after load
// name their default in data-default. Fields inside a disabled
// fieldset are neither sent nor validated, so alternatives live in fieldsets.

// The form's state as URL parameters (every named, enabled field that is not empty, or
// that was emptied although it has a default).
export function formToParams(form) {
  const params = new URLSearchParams();
  for (const el of form.elements) {
    if (!el.name || el.matches(':disabled')) continue;
    if ((el.type === 'radio' || el.type === 'checkbox') && !el.checked) continue;
    // An empty field is left out, unless its default is not empty: then "cleared" is state.
    if (el.value === '' && defaultOf(el) === '') continue;
    params.append(el.name, el.value);
  }
  return params;
}

// A field's default: its HTML default, or data-default for lists that are filled later.
function defaultOf(el) {
  if (el.dataset.default !== undefined) return el.dataset.default;
  if (el.tagName === 'SELECT') {
    const chosen = [...el.options].find((o) => o.defaultSelected) || el.options[0];
    return chosen ? chosen.value : '';
  }
  return el.defaultValue;
}

// Sets the form from URL parameters: named fields take their value, the others their
// default (so Back and Forward show what the URL says, not what was typed last). Fields
// whose value changed get a 'restore' event, so lists that depend on them reload.
export function paramsToForm(form, params) {
  const changed = [];
  for (const el of form.elements) {
    if (!el.name) continue;
    const before = el.type === 'radio' || el.type === 'checkbox' ? el.checked : el.value;
    if (!params.has(el.name)) {
      delete el.dataset.restored;
      const byDefault = defaultOf(el);
      if (el.type === 'radio' || el.type === 'checkbox') {
        el.checked = el.defaultChecked;
      } else if (el.tagName === 'SELECT' && byDefault !== '' && ![...el.options].some((o) => o.value === byDefault)) {
        // A list not filled yet (a link that leaves the preset out): its default, so the
        // request still names it.
        el.add(new Option(byDefault, byDefault));
        el.value = byDefault;
      } else {
        el.value = byDefault;
      }
    } else {
      const values = params.getAll(el.name);
      el.dataset.restored = '1';  // lists that load later keep this value
      if (el.type === 'radio' || el.type === 'checkbox') {
        el.checked = values.includes(el.value);
      } else if (el.tagName === 'SELECT' && ![...el.options].some((o) => o.value === values[0])) {
        // A choice the list does not hold (yet): keep it, so the request still names it.
        el.add(new Option(values[0], values[0]));
        el.value = values[0];
      } else {
        el.value = values[0];
      }
    }
    const after = el.type === 'radio' || el.type === 'checkbox' ? el.checked : el.value;
    if (after !== before) changed.push(el);
  }
  for (const el of changed) el.dispatchEvent(new Event('restore'));
  // Optional fields folded away show themselves when the URL sets one of them.
  for (const box of form.querySelectorAll('details')) {
    if ([...box.querySelectorAll('[name]')].some((el) => params.has(el.name))) box.open = true;
  }
  form.dispatchEvent(new Event('change'));
}

// "a, b,,c" -> ["a", "b", "c"].
export function splitList(text) {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function setPath(target, path, value) {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key];
  }
  node[keys[keys.length - 1]] = value;
}

// The JSON body the form describes.
export function formToBody(form) {
  const body = {};
  for (const el of form.elements) {
    if (!el.name || el.name.startsWith('_') || el.matches(':disabled')) continue;
    if ((el.type === 'radio' || el.type === 'checkbox') && !el.checked) continue;
    const raw = el.value.trim();
    if (raw === '') continue;
    const kind = el.dataset.kind || (el.type === 'number' ? 'number' : 'string');
    let value = raw;
    if (kind === 'number') {
      value = Number(raw);
      if (!Number.isFinite(value)) value = raw;  // sent as typed: the API names the field
    } else if (kind === 'list') {
      value = splitList(raw);
    } else if (kind === 'boolean') {
      value = raw === 'true';
    }
    setPath(body, el.name, value);
  }
  return body;
}

// Enables the fieldset of each chosen alternative: <fieldset data-when="_mode=value">.
export function applyAlternatives(form) {
  for (const set of form.querySelectorAll('fieldset[data-when]')) {
    const [name, value] = set.dataset.when.split('=');
    const chosen = form.querySelector(`[name="${name}"]:checked`) || form.elements[name];
    const on = !!chosen && chosen.value === value;
    set.disabled = !on;
    set.hidden = !on;
  }
}

export function clearErrors(form) {
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  for (const el of form.querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
  }
  const box = form.querySelector('.form-error');
  if (box) {
    box.hidden = true;
    box.textContent = '';
  }
}

// The field a problem's pointer ("/hardware/gpu", "/constraints/gpus/1") or query parameter
// names, or its nearest named ancestor, with the rest of the path; for a pointer at an object
// the form fills member by member ("/engine": its fields are engine.version, ...), the first
// of those fields; null when none.
function fieldFor(form, where) {
  const full = where.replace(/^\//, '').split('/').filter((s) => s !== '');
  const shown = (el) => ({ field: el.type === 'radio' ? el.closest('fieldset') || el : el });
  for (let n = full.length; n > 0; --n) {
    const name = full.slice(0, n).join('.');
    const el = form.querySelector(`[name="${CSS.escape(name)}"]:not(:disabled)`);
    if (el) return { ...shown(el), rest: full.slice(n) };
  }
  if (full.length === 0) return null;
  const member = form.querySelector(`[name^="${CSS.escape(`${full.join('.')}.`)}"]:not(:disabled)`);
  return member ? { ...shown(member), rest: [] } : null;
}

// The item of a comma-separated list field that `rest` (["1"]) points at, if any.
function listItem(field, rest) {
  if (field.dataset?.kind !== 'list' || rest.length !== 1 || !/^\d+$/.test(rest[0])) return null;
  const items = splitList(field.value);
  return items[Number(rest[0])] ?? null;
}

let errorIds = 0;

// Shows an ApiError: the problem's title and detail at the top of the form, and each of its
// errors beside the field it names. Returns how many were placed beside fields.
export function showProblem(form, err) {
  clearErrors(form);
  const problem = err.problem || { title: 'Error', detail: String(err.message || err) };
  const box = form.querySelector('.form-error');
  let placed = 0;
  for (const e of problem.errors || []) {
    const where = e.pointer ?? e.parameter ?? '';
    const found = fieldFor(form, where);
    if (!found) continue;
    const { field, rest } = found;
    const item = listItem(field, rest);
    const note = document.createElement('p');
    note.className = 'field-error';
    note.id = `field-error-${++errorIds}`;
    note.textContent = item && !e.detail.includes(item) ? `${item}: ${e.detail}` : e.detail;
    const folded = field.closest('details');  // optional fields folded away: unfold them
    if (folded) folded.open = true;
    const anchor = field.closest('label') || field;
    let last = anchor;  // after the notes already there, in the order of the errors
    while (last.nextElementSibling?.classList.contains('field-error')) last = last.nextElementSibling;
    last.after(note);
    field.setAttribute('aria-invalid', 'true');
    const described = field.getAttribute('aria-describedby');
    field.setAttribute('aria-describedby', described ? `${described} ${note.id}` : note.id);
    placed += 1;
  }
  if (box) {
    box.textContent = `${problem.title || 'Error'}: ${problem.detail || ''}`;
    box.hidden = false;
  }
  const first = form.querySelector('[aria-invalid="true"]');
  if (first && typeof first.focus === 'function') first.focus();
  return placed;
}
