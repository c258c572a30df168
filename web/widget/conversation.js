// The chat widget: session and history, the WebSocket, the HTTP fallback.
// One part of widget.js (see boot.js).
async function createSession() {
  const body = options.user ? { user: userName(options.user) } : {};
  const created = await api('POST', '/v1/sessions', body);
  state.session = created.session;
  remember(created.session);
  setHandoff(created.handoff || 'bot', undefined, false);
}

function renderHistoryMessage(m) {
  if (state.shown.has(m.seq_id)) return;
  if (m.role === 'user') {
    // Stored after our message was sent: our message, on screen already (the answer that
    // would have told its seq_id is still on its way, or was lost with the connection).
    const mine = state.unconfirmed.find((n) => m.seq_id > n.after);
    if (mine) confirm(mine, m.seq_id);
    else userMessage(m.text, m.seq_id);
  } else if (m.role === 'agent') {
    agentMessage(m.text, m.agent, m.seq_id);
  } else if (m.role === 'assistant') {
    markShown(m.seq_id);
    // As the answer looked live: its source's badge, its Sources, thumbs unless refused.
    const node = add(messageNode('assistant', m.text, T.assistant));
    if (m.source) setBadge(node, m.source);
    if (m.citations) setCitations(node, m.citations);
    if (m.source !== 'refused') addThumbs(node, m.seq_id);
  } else if (m.text) {
    markShown(m.seq_id);
    systemLine(m.text);
  }
}

// Loads the conversation (all of it on first load; what is new after a reconnect).
async function loadHistory(initial) {
  const path = `/v1/sessions/${encodeURIComponent(state.session)}/messages?limit=50`;
  const history = await api('GET', path);
  const messages = history.messages || [];
  if (initial && messages.length === 0) systemLine(T.welcome);
  for (const m of messages) renderHistoryMessage(m);
  setHandoff(history.handoff || 'bot', history.agent, !initial);
  if (initial && history.handoff === 'closed') askCsat();
  if (initial) scrollDown();
}

// Makes sure there is a session and its history is on screen; shared by concurrent callers.
function start() {
  if (!state.starting) {
    state.starting = (async () => {
      setStatus(T.connecting);
      const saved = recalled();
      if (saved) {
        state.session = saved;
        try {
          await loadHistory(true);
        } catch (e) {
          if (e.status === 404 || e.status === 400) {
            remember(null);
            state.session = null;
          } else {
            throw e;
          }
        }
      }
      if (!state.session) {
        await createSession();
        systemLine(T.welcome);
      }
      connect();
      state.startFailed = false;
    })().catch((e) => {
      state.starting = null;
      // The server refused (a missing key, say): trying again will not help until the next
      // time the customer opens the panel. Anything else may pass: retry on our own.
      const refused = e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
      setStatus(refused ? T.unavailable : T.offline, true);
      if (!state.startFailed) showError(e);  // once per streak of failures
      state.startFailed = true;
      clearTimeout(state.retryTimer);
      if (!refused) {
        state.retryTimer = setTimeout(() => {
          if (!panel.hidden || recalled()) start().catch(() => {});
        }, 5000);
      }
      throw e;
    });
  }
  return state.starting;
}

// ---------------------------------------------------------------- the WebSocket
function socketUrl() {
  return `${origin.replace(/^http/, 'ws')}/v1/ws?session=${encodeURIComponent(state.session)}`;
}

function connect() {
  clearTimeout(state.reconnectTimer);
  if (state.fallback) {
    setStatus(T.fallback);
    startPolling();
    return;
  }
  let socket;
  try {
    socket = new WebSocket(socketUrl());
  } catch {
    state.fallback = true;
    connect();
    return;
  }
  state.socket = socket;
  socket.addEventListener('open', () => {
    if (state.socket !== socket) return;
    const resumed = state.everOpened;
    state.socketOpen = true;
    state.everOpened = true;
    state.failures = 0;
    stopPolling();
    setStatus(T.online);
    // Keeps proxies from closing a quiet socket; the server answers {"type":"pong"}.
    socket.heartbeat = setInterval(() => socket.send('{"type":"ping"}'), 30000);
    if (resumed) loadHistory(false).catch(() => {});  // what was missed while away
  });
  socket.addEventListener('message', (m) => {
    if (state.socket !== socket) return;
    let event;
    try { event = JSON.parse(m.data); } catch { return; }
    onSocketEvent(event);
  });
  socket.addEventListener('close', () => {
    clearInterval(socket.heartbeat);
    if (state.socket !== socket) return;
    state.socket = null;
    const wasOpen = state.socketOpen;
    state.socketOpen = false;
    const unanswered = state.unconfirmed.filter((n) => n.socket === socket);
    if (state.pending || unanswered.length) abandonPending(unanswered);
    state.failures += 1;
    // Never connected after several tries: WebSockets are blocked on the way; use HTTP.
    if (!state.everOpened && state.failures >= 3) {
      state.fallback = true;
      connect();
      return;
    }
    setStatus(wasOpen || state.failures < 3 ? T.reconnecting : T.offline, true);
    if (state.failures >= 2) startPolling();  // keep agent messages coming meanwhile
    const delay = Math.min(10000, 500 * 2 ** Math.min(state.failures - 1, 5)) * (0.75 + Math.random() / 2);
    state.reconnectTimer = setTimeout(connect, delay);
  });
}

function onSocketEvent(event) {
  switch (event.type) {
    case 'citations':
    case 'token':
    case 'notice':
    case 'done': {
      const question = event.type === 'done' && socketQuestion();
      if (question) confirm(question, event.message_seq_id);
      if (!state.pending) {
        if (event.type === 'done' && state.shown.has(event.answer?.seq_id)) return;
        state.pending = add(answerNode());
      }
      armPendingTimer();
      if (applyAnswerEvent(state.pending, event)) {
        state.pending = null;
        clearTimeout(state.pendingTimer);
        setBusy(false);
      }
      break;
    }
    case 'agent_message':
      agentMessage(event.text, event.agent, event.seq_id);
      break;
    case 'handoff':
      setHandoff(event.state, event.agent);
      break;
    case 'error': {
      if (state.pending) abandonPending();
      setBusy(false);
      // The desk refuses a message before storing it: the oldest one sent is not stored.
      const error = new ApiError(event.status || 0, event.message || event.code || T.unknownError, event.code);
      const question = socketQuestion();
      if (question) markFailed(question, error);
      else showError(error);
      break;
    }
    default:
      break;
  }
}

// The answer under way will not finish (the server went quiet or refused; or the socket
// dropped, with `unanswered` the messages sent over it that no answer confirmed).
function abandonPending(unanswered = null) {
  clearTimeout(state.pendingTimer);
  const node = state.pending;
  state.pending = null;
  if (node && !node.text) node.remove();
  else if (node) node.removeAttribute('aria-busy');
  setBusy(false);
  if (!unanswered || !state.session) return;
  // What the server has is in its history (and so confirmed); the rest did not arrive.
  const settle = (e) => {
    for (const n of unanswered) if (state.unconfirmed.includes(n)) markFailed(n, e);
  };
  loadHistory(false).then(() => settle(new ApiError(0, T.lost)), settle);
}

function armPendingTimer() {
  clearTimeout(state.pendingTimer);
  state.pendingTimer = setTimeout(() => {
    if (!state.pending) return;
    abandonPending();
    showError(new ApiError(0, T.noAnswer));
  }, 60000);
}

// ---------------------------------------------------------------- HTTP fallback
function startPolling() {
  if (state.pollTimer) return;
  state.pollTimer = setInterval(() => {
    if (state.session) loadHistory(false).catch(() => {});
  }, 3000);
}
function stopPolling() {
  clearInterval(state.pollTimer);
  state.pollTimer = null;
}

// Sends question (the customer's message on screen) and streams the answer in; when this
// throws, question.heard tells whether the server had taken the message (an answer event came).
async function sendOverHttp(question) {
  const node = add(answerNode());
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 20000);
  try {
    let response;
    try {
      response = await fetch(`${origin}/v1/sessions/${encodeURIComponent(state.session)}/messages`, {
        method: 'POST', headers: headers(true), signal: controller.signal,
        body: JSON.stringify({ text: question.text, stream: true }),
      });
    } catch (e) {
      throw new ApiError(0, e.name === 'AbortError' ? T.noAnswer : T.unreachable);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw await failure(response);
    let finished = false;
    await readEvents(response, (event) => {
      if (event.error) throw new ApiError(0, event.error.message || T.unknownError, event.error.code);
      if (event.type === 'error') throw new ApiError(event.status || 0, event.message || T.unknownError, event.code);
      question.heard = true;
      if (event.type === 'done') confirm(question, event.message_seq_id);
      if (applyAnswerEvent(node, event)) finished = true;
    }, 60000);
    if (!finished) throw new ApiError(0, T.noAnswer);
  } catch (e) {
    if (!node.text) node.remove();
    else node.removeAttribute('aria-busy');
    throw e;
  }
}
