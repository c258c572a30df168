// The chat widget: requests to the server and its server-sent events.
// One part of widget.js (see boot.js).
class ApiError extends Error {
  constructor(status, message, code) {
    super(serverMessage(message, code));
    this.status = status;
    this.code = code;
  }
}

function headers(json) {
  const h = {};
  if (json) h['Content-Type'] = 'application/json';
  if (options.apiKey) h.Authorization = `Bearer ${options.apiKey}`;
  return h;
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  let code;
  try {
    const body = await response.json();
    if (body?.error?.message) message = body.error.message;
    code = body?.error?.code;
  } catch { /* not JSON */ }
  return new ApiError(response.status, message, code);
}

// A JSON request that gives up after `timeout` ms; errors are ApiError with the server's message.
async function api(method, path, body, timeout = 15000) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  let response;
  try {
    response = await fetch(origin + path, {
      method, headers: headers(body !== undefined), signal: controller.signal,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await failure(response);
    return await response.json();
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e.name === 'AbortError') throw new ApiError(0, T.slow);
    throw new ApiError(0, T.unreachable);
  } finally {
    clearTimeout(timer);
  }
}

// Reads server-sent events from a fetch response: calls onEvent(object) per data line.
async function readEvents(response, onEvent, idleTimeout) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    let timer;
    const idle = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new ApiError(0, T.noAnswer)), idleTimeout);
    });
    let chunk;
    try {
      chunk = await Promise.race([reader.read(), idle]);
    } finally {
      clearTimeout(timer);
    }
    if (chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true });
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = block.split(/\r?\n/).filter((l) => l.startsWith('data:'))
                        .map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      if (!data) continue;
      if (data === '[DONE]') {
        reader.cancel().catch(() => {});
        return;
      }
      try {
        onEvent(JSON.parse(data));
      } catch (e) {
        if (e instanceof SyntaxError) continue;
        throw e;
      }
    }
  }
}
