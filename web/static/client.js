// Talking to supportd from the operator pages (agent console, dashboard): JSON over fetch with a
// timeout, the API key when the server needs one, and errors carrying the server's message.

export class ApiError extends Error {
  // status 0: the request never got an answer (network down, timeout).
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const KEY = 'supportd.apiKey';

export function apiKey() {
  try { return sessionStorage.getItem(KEY) || ''; } catch { return ''; }
}
export function setApiKey(key) {
  try {
    if (key) sessionStorage.setItem(KEY, key);
    else sessionStorage.removeItem(KEY);
  } catch { /* storage disabled: the key lasts as long as the page */ }
}

// Sends a request; resolves with the parsed JSON body, or rejects with ApiError.
export async function api(method, path, { body, headers = {}, timeout = 10000 } = {}) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  const h = { ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  const key = apiKey();
  if (key) h.Authorization = `Bearer ${key}`;
  let response;
  try {
    response = await fetch(path, {
      method, headers: h, signal: controller.signal, cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, e.name === 'AbortError' ? `no answer from the server within ${timeout / 1000} s`
                                                  : 'cannot reach the server');
  } finally {
    clearTimeout(timer);
  }
  const text = await response.text().catch(() => '');
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!response.ok) {
    const message = data?.error?.message || text.slice(0, 200) || response.statusText;
    throw new ApiError(response.status, `${response.status}: ${message}`, data?.error?.code);
  }
  return data;
}

// "3 s", "4 min", "2 h 5 min".
export function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

// A DOM element: attributes (class, text, on<event> handlers, style as an object of CSS
// properties set through CSSOM, anything else as an attribute), then its children.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'style') Object.assign(node.style, v);  // CSSOM, which the pages' CSP allows
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}
