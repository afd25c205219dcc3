// gpuplan dashboard: a view per planning question, all through the public /api/v1
// endpoints. The URL's hash holds the view and its form state (#/estimate?workload=...), so
// every result has a link that restores it; the browser's back button walks the history.
import { catalogView, gpuView, instanceView } from './views/catalog.js';
import { estimateView } from './views/estimate.js';
import { recommendView } from './views/recommend.js';
import { compareView } from './views/compare.js';
import { servingView } from './views/serving.js';
import { spotView } from './views/spot.js';
import { runsView } from './views/runs.js';
import { loadCurrencies } from './parts.js';

const views = {
  catalog: catalogView,
  gpu: gpuView,
  instance: instanceView,
  estimate: estimateView,
  recommend: recommendView,
  compare: compareView,
  serving: servingView,
  spot: spotView,
  runs: runsView,
};
const started = new Set();

// "#/estimate?x=1" -> {name: "estimate", args: [], params}; "#/gpu/A100" -> args ["A100"].
function parseHash() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = hash.split('?');
  let parts;
  try {
    parts = path.split('/').map(decodeURIComponent);
  } catch {
    parts = ['catalog'];  // a malformed %-escape: the catalog, not a dead page
  }
  const [name, ...args] = parts;
  return { name: Object.hasOwn(views, name) ? name : 'catalog', args, params: new URLSearchParams(query) };
}

function route() {
  const { name, args, params } = parseHash();
  for (const section of document.querySelectorAll('main > section')) {
    section.hidden = section.dataset.view !== name;
  }
  for (const link of document.querySelectorAll('nav a')) {
    const current = link.dataset.view === name ||
      (name === 'gpu' || name === 'instance') && link.dataset.view === 'catalog';
    if (current) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  const section = document.getElementById(`view-${name}`);
  const view = views[name];
  if (!started.has(name)) {
    started.add(name);
    view.init(section);
  }
  document.title = `${section.querySelector('h2').textContent} — gpuplan`;  // detail views rename it
  view.show(section, params, args);
}

window.addEventListener('hashchange', route);
loadCurrencies(document).catch(() => {});
route();
