// Navigation between the dashboard's views: the URL's hash holds the view and its form
// state (#/estimate?workload=...). Views call navigate on submit; app.js routes on every
// 'hashchange' (and this module fires one when the state asked is the current one, so the
// view runs it again). No imports: views and app.js both use it without a cycle.
export function navigate(name, params) {
  const query = params.toString();
  const target = `#/${name}${query ? `?${query}` : ''}`;
  if (location.hash === target) {
    window.dispatchEvent(new HashChangeEvent('hashchange'));  // the same state again: run it again
  } else {
    location.hash = target;
  }
}
