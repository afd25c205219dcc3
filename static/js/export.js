// "Export as SkyPilot / Kubernetes": a plan (a training or inference estimate, or one
// recommendation item) as the YAML a scheduler runs, from GET /api/v1/plans/export with the
// request that produced the answer. View it in the page, copy it, or download it (what is
// saved is the API's answer as fetched, with the kept API key, so that a training plan is
// calibrated by the same measured runs as the estimate shown).
import { ApiError, apiKey } from './api.js';
import { el } from './format.js';

const formats = [['skypilot', 'SkyPilot'], ['kubernetes', 'Kubernetes']];

// The export URL of `request` (the POST body) as `kind`, in `format`; `item` picks a
// recommendation's item by rank.
export function exportUrl(format, kind, request, item) {
  const q = new URLSearchParams({ format, kind, request: JSON.stringify(request) });
  if (item !== undefined && item !== null) q.set('item', String(item));
  return `/api/v1/plans/export?${q}`;
}

async function fetchText(url) {
  const res = await fetch(url, { headers: { Accept: 'application/yaml', ...apiKey.headers() } });
  const text = await res.text();
  if (!res.ok) {
    let problem = null;
    try {
      problem = JSON.parse(text);
    } catch {
      problem = null;
    }
    if (!problem || typeof problem !== 'object') {
      problem = { title: `HTTP ${res.status}`, detail: text.slice(0, 200) };
    }
    throw new ApiError(res.status, problem);
  }
  return text;
}

// A folded box "Export as SkyPilot / Kubernetes" for `kind` and `request`. Returns
// {box, show(item, label)}: show() points it at a recommendation item and opens it.
export function exportPanel(kind, request, { name = 'gpuplan', item, label } = {}) {
  const summary = el('summary', { text: 'Export as SkyPilot / Kubernetes' });
  const what = el('p', { class: 'export-what' });
  const output = el('pre', { class: 'export-yaml', tabindex: '0', 'aria-label': 'Exported plan' });
  const status = el('p', { class: 'export-status', role: 'status', 'aria-live': 'polite' });
  const buttons = el('div', { class: 'export-buttons' });
  const box = el('details', { class: 'export' }, summary, what, buttons, status, output);
  output.hidden = true;
  let current = { item, label };
  let shown = null;  // the format whose YAML the <pre> holds

  const render = () => {
    what.textContent = current.label ? `Plan: ${current.label}` : '';
    buttons.replaceChildren();
    for (const [format, text] of formats) {
      const url = exportUrl(format, kind, request, current.item);
      const view = el('button', { type: 'button', class: 'small', 'data-format': format, text: `View ${text}` });
      view.addEventListener('click', async () => {
        status.textContent = `Loading the ${text} plan…`;
        try {
          output.textContent = await fetchText(url);
          output.hidden = false;
          shown = format;
          status.textContent = `${text} YAML of ${current.label || 'the plan'}.`;
        } catch (err) {
          output.hidden = true;
          shown = null;
          status.textContent = `Not exported: ${err.problem?.detail || err.message}`;
        }
      });
      const download = el('button', { type: 'button', class: 'small', text: `Download ${text}` });
      download.addEventListener('click', async () => {
        try {
          const blob = new Blob([await fetchText(url)], { type: 'application/yaml' });
          const a = el('a', { href: URL.createObjectURL(blob), download: `${name}-${format}${current.item ? `-${current.item}` : ''}.yaml` });
          document.body.append(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(a.href), 10000);
          status.textContent = `Downloaded ${a.download}.`;
        } catch (err) {
          status.textContent = `Not exported: ${err.problem?.detail || err.message}`;
        }
      });
      buttons.append(view, download);
    }
    const copy = el('button', { type: 'button', class: 'small', text: 'Copy shown YAML' });
    copy.addEventListener('click', async () => {
      if (!shown) {
        status.textContent = 'View a plan first, then copy it.';
        return;
      }
      try {
        await navigator.clipboard.writeText(output.textContent);
        status.textContent = 'Copied.';
      } catch {
        const range = document.createRange();  // no clipboard access: select it for Ctrl+C
        range.selectNodeContents(output);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
      }
    });
    buttons.append(copy);
    output.hidden = true;
    output.textContent = '';
    shown = null;
  };
  render();
  return {
    box,
    show(nextItem, nextLabel) {
      current = { item: nextItem, label: nextLabel };
      render();
      status.textContent = '';
      box.open = true;
      box.scrollIntoView({ block: 'nearest' });
    },
  };
}
