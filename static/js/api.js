// Calls to the public /api/v1 endpoints. Every answer that is not 2xx becomes an ApiError
// carrying the problem+json body (title, detail, errors[] with pointer or parameter).

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

// The API key the user gave for measured runs: kept in sessionStorage (this tab, until it
// closes), sent only as an Authorization header, never in a URL or a form's state.
const keyName = 'gpuplan.apiKey';
export const apiKey = {
  get: () => sessionStorage.getItem(keyName) || '',
  set: (key) => (key ? sessionStorage.setItem(keyName, key) : sessionStorage.removeItem(keyName)),
  // {Authorization: 'Bearer …'} when a key is kept, else {}.
  headers() {
    const key = this.get();
    return key ? { Authorization: `Bearer ${key}` } : {};
  },
};

// GET or POST `path`; `signal` cancels it (an AbortError is thrown, which callers ignore).
// `auth` sends the kept API key (measured runs; estimates calibrated by the key's own runs).
export async function api(path, { method = 'GET', body, signal, auth = false } = {}) {
  const init = { method, signal, headers: { Accept: 'application/json', ...(auth ? apiKey.headers() : {}) } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError(0, { title: 'The server could not be reached', detail: String(err.message || err) });
  }
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const problem = parsed && typeof parsed === 'object'
      ? parsed : { title: res.statusText || `HTTP ${res.status}`, detail: text.slice(0, 200) };
    // A kept key the server refuses (revoked, or without the scope) would otherwise fail every
    // call that sends it with no hint why: say which key and where to forget it.
    if (auth && init.headers.Authorization && (res.status === 401 || res.status === 403)) {
      problem.detail = [problem.detail || problem.title,
        '(the API key kept for measured runs was refused: forget it or enter another under Measured runs)']
        .filter(Boolean).join(' ');
    }
    throw new ApiError(res.status, problem);
  }
  return parsed;
}

// One request in flight per view: starting a new one aborts the one before, so a slow
// answer to an old form never overwrites the answer to the new one.
export class Latest {
  constructor() {
    this.controller = null;
  }

  // Runs `fn(signal)`; resolves to its result, or to undefined when it was superseded.
  async run(fn) {
    this.cancel();
    const controller = new AbortController();
    this.controller = controller;
    try {
      const result = await fn(controller.signal);
      return controller.signal.aborted ? undefined : result;
    } catch (err) {
      if (controller.signal.aborted || err.name === 'AbortError') return undefined;
      throw err;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  // Aborts the request in flight, if any.
  cancel() {
    if (this.controller) this.controller.abort();
  }
}

// Lists that the forms offer as choices, fetched once per page load.
const cache = new Map();
export function cached(path) {
  if (!cache.has(path)) {
    const p = api(path);
    p.catch(() => cache.delete(path));  // a failed load may be retried
    cache.set(path, p);
  }
  return cache.get(path);
}

// Every item of a paged list (`items`, `next_cursor`), page by page through `cached`, up to
// `maxPages` pages: with every region of every cloud seeded, one page of 500 offers no
// longer holds a cloud's instance types.
export async function cachedAllPages(path, maxPages = 20) {
  const items = [];
  let next = path;
  for (let page = 0; next && page < maxPages; ++page) {
    const answer = await cached(next);
    items.push(...answer.items);
    next = answer.next_cursor ? `${path}&cursor=${encodeURIComponent(answer.next_cursor)}` : null;
  }
  return { items };
}
