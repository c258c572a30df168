// The agent console (/agent): waiting conversations (live over /v1/agent/ws, polling when the
// socket is unavailable), taking one, its history, replying, closing and handing back to the bot.
import { api, ApiError, apiKey, setApiKey, duration, el } from './client.js';

const $ = (id) => document.getElementById(id);
const ui = {
  name: $('agent-name'), keyField: $('key-field'), key: $('api-key'),
  connection: $('connection'), alert: $('alert'),
  waiting: $('waiting'), waitingCount: $('waiting-count'), waitingEmpty: $('waiting-empty'),
  mine: $('mine'), mineCount: $('mine-count'), mineEmpty: $('mine-empty'),
  placeholder: $('placeholder'), detail: $('detail'), title: $('detail-title'), state: $('detail-state'),
  take: $('take'), release: $('release'), close: $('close'), history: $('history'),
  reply: $('reply'), replyText: $('reply-text'), replySend: $('reply-send'),
};

const NAME_KEY = 'supportd.agent.name';
const MINE_KEY = 'supportd.agent.mine';  // sessions this browser's agent has taken
const state = {
  waiting: [],          // conversations from the server
  mine: [],             // conversations this agent has taken
  selected: null,       // session id on screen
  conversation: null,   // its history document
  shown: new Set(),     // seq_ids on screen
  unread: new Set(),    // sessions with customer messages not yet seen
  socket: null,
  live: false,
  socketFailures: 0,
  pollTimer: null,
  detailTimer: null,
  keyNeeded: false,
};

// ------------------------------------------------------------------ messages to the agent
let alertTimer = null;
function showAlert(message, kind = 'error', sticky = false) {
  ui.alert.dataset.kind = '';
  ui.alert.textContent = message;
  ui.alert.className = kind === 'info' ? 'alert info' : 'alert';
  ui.alert.hidden = false;
  clearTimeout(alertTimer);
  if (!sticky) alertTimer = setTimeout(() => { ui.alert.hidden = true; }, 8000);
}
function clearAlert() {
  ui.alert.hidden = true;
}

// Shared handling of a failed request: asks for a key on 401 (and for an agent's key on 403, a
// customer's key), says what went wrong otherwise.
function failed(e, what) {
  const customerKey = e instanceof ApiError && e.code === 'permission_denied';
  if (e instanceof ApiError && (e.status === 401 || customerKey)) {
    state.keyNeeded = true;
    ui.keyField.hidden = false;
    if (customerKey) {
      showAlert('This key is a customer key: the agent console needs an agent key.', 'error', true);
    } else {
      showAlert(apiKey() ? 'The API key was refused. Enter a valid key.'
                         : 'This server needs an API key: enter it above.', 'error', true);
    }
    if (document.activeElement !== ui.name) ui.key.focus();
    return;
  }
  showAlert(`${what}: ${e.message}`, 'error', e.status === 0);
  if (e.status === 0) ui.alert.dataset.kind = 'network';  // cleared when the server answers again
}

function agentName() {
  return ui.name.value.trim();
}
function requireName() {
  const name = agentName();
  if (!name) {
    showAlert('Enter your name first: customers see it when you join.');
    ui.name.focus();
  }
  return name;
}

function setConnection(text, kind) {
  ui.connection.textContent = text;
  ui.connection.className = `connection ${kind}`;
}

// ------------------------------------------------------------------ lists
const users = new Map();  // session -> user, as the lists reported it
function conversationLabel(c) {
  const user = c.user || users.get(c.session);
  const tag = `#${String(c.session).slice(-6)}`;
  return user && !['web', 'anonymous'].includes(user) ? `${user} (${tag})` : `Visitor ${tag}`;
}

function storedMine() {
  try { return new Set(JSON.parse(localStorage.getItem(MINE_KEY) || '[]')); } catch { return new Set(); }
}
function storeMine(sessions) {
  try { localStorage.setItem(MINE_KEY, JSON.stringify([...sessions])); } catch { /* ignore */ }
}

// Updates the list in place (a button being clicked or focused is never replaced).
function renderList(list, items, countNode, emptyNode, mineList) {
  const existing = new Map([...list.children].map((li) => [li.dataset.session, li]));
  let previous = null;
  for (const c of items) {
    let li = existing.get(c.session);
    existing.delete(c.session);
    if (!li) {
      li = el('li', { 'data-session': c.session },
              el('button', { type: 'button', onclick: () => select(c.session) },
                 el('span', { class: 'who' }), el('span', { class: 'meta' })));
    }
    const button = li.firstChild;
    const unread = mineList && state.unread.has(c.session);
    const meta = mineList
        ? `taken by you${unread ? ' · new message' : ''}`
        : `waiting ${duration(Date.now() - (c.waiting_since_ms || Date.now()))}` +
          (c.last_seq ? ` · ${c.last_seq} messages` : '');
    button.querySelector('.who').textContent = `${unread ? '● ' : ''}${conversationLabel(c)}`;
    button.querySelector('.meta').textContent = meta;
    button.setAttribute('aria-current', c.session === state.selected ? 'true' : 'false');
    const want = previous ? previous.nextSibling : list.firstChild;
    if (want !== li) list.insertBefore(li, want);
    previous = li;
  }
  for (const li of existing.values()) li.remove();
  countNode.textContent = String(items.length);
  countNode.classList.toggle('hot', !mineList && items.length > 0);
  emptyNode.hidden = items.length > 0;
}

function render() {
  renderList(ui.waiting, state.waiting, ui.waitingCount, ui.waitingEmpty, false);
  renderList(ui.mine, state.mine, ui.mineCount, ui.mineEmpty, true);
  document.title = state.waiting.length > 0 ? `(${state.waiting.length}) Agent console · supportd`
                                            : 'Agent console · supportd';
}

function setWaiting(conversations) {
  for (const c of conversations || []) if (c.user) users.set(c.session, c.user);
  state.waiting = (conversations || []).filter((c) => (c.handoff || 'waiting') === 'waiting')
      .sort((a, b) => (a.waiting_since_ms || 0) - (b.waiting_since_ms || 0));
  render();
  if (state.selected && state.conversation?.handoff === 'waiting' &&
      !state.waiting.some((c) => c.session === state.selected)) {
    refreshDetail();  // someone took it, or the customer went back to the bot
  }
}

async function loadWaiting() {
  const r = await api('GET', '/v1/agent/conversations?state=waiting');
  setWaiting(r.conversations);
}

// The conversations this agent holds: the ones taken from this browser, each checked with the
// server (another agent's console, a close by the customer or a restart may have changed it).
async function loadMine() {
  const me = agentName();
  const sessions = storedMine();
  const mine = [];
  await Promise.all([...sessions].map(async (session) => {
    try {
      const c = await api('GET', `/v1/agent/conversations/${encodeURIComponent(session)}`);
      if (c.handoff === 'taken' && c.agent === me) mine.push({ session, ...c, messages: undefined });
      else sessions.delete(session);
    } catch (e) {
      if (e.status === 404 || e.status === 400) sessions.delete(session);
      else throw e;
    }
  }));
  storeMine(sessions);
  state.mine = mine.sort((a, b) => a.session.localeCompare(b.session));
  render();
}
function rememberMine(session, held) {
  const sessions = storedMine();
  if (held) sessions.add(session);
  else sessions.delete(session);
  storeMine(sessions);
}

let lastMineLoad = 0;
async function refreshLists(withMine = true) {
  try {
    const mineDue = withMine || Date.now() - lastMineLoad > 5000;
    await Promise.all([loadWaiting(), mineDue ? loadMine() : null]);
    if (mineDue) lastMineLoad = Date.now();
    if (!state.keyNeeded) clearAlertIfStale();
    return null;
  } catch (e) {
    failed(e, 'Could not load the conversations');
    return e;
  }
}
function clearAlertIfStale() {
  if (ui.alert.dataset.kind === 'network') clearAlert();
}

// ------------------------------------------------------------------ live updates
function connectSocket() {
  if (!('WebSocket' in window)) {
    startPolling();
    return;
  }
  const url = `${location.origin.replace(/^http/, 'ws')}/v1/agent/ws`;
  let socket;
  try {
    socket = new WebSocket(url);
  } catch {
    startPolling();
    return;
  }
  state.socket = socket;
  let opened = false;
  socket.addEventListener('open', () => {
    opened = true;
    state.live = true;
    state.socketFailures = 0;
    setConnection('Live', 'live');
    stopPolling();
    socket.heartbeat = setInterval(() => socket.send('{"type":"ping"}'), 30000);
    refreshLists();
  });
  socket.addEventListener('message', (m) => {
    let event;
    try { event = JSON.parse(m.data); } catch { return; }
    if (event.type === 'waiting') {
      setWaiting(event.conversations);
      loadMine().catch(() => {});
    } else if (event.type === 'customer_message') {
      onCustomerMessage(event);
    }
  });
  socket.addEventListener('close', () => {
    clearInterval(socket.heartbeat);
    if (state.socket !== socket) return;
    state.socket = null;
    state.live = false;
    state.socketFailures += 1;
    // Polling keeps the lists fresh while the socket is away (or refused: keys need headers).
    startPolling();
    // With an API key the socket cannot work (a browser's WebSocket sends no Authorization
    // header): polling only. Otherwise try again, backing off.
    if (apiKey() && !opened) return;
    const delay = Math.min(15000, 1000 * 2 ** Math.min(state.socketFailures - 1, 4));
    setTimeout(connectSocket, opened ? 500 : delay);
  });
}

function startPolling() {
  if (state.pollTimer) return;
  setConnection('Polling every 2 s', 'polling');
  const tick = async () => {
    const error = await refreshLists(false);
    if (state.live) return;
    if (!error) setConnection('Polling every 2 s', 'polling');
    else if (error.status === 401) setConnection('Needs an API key', 'down');
    else if (error.code === 'permission_denied') setConnection('Needs an agent key', 'down');
    else if (error.status === 0) setConnection('Server unreachable, retrying', 'down');
    else setConnection(`Server error ${error.status}, retrying`, 'down');
  };
  tick();
  state.pollTimer = setInterval(tick, 2000);
}
function stopPolling() {
  clearInterval(state.pollTimer);
  state.pollTimer = null;
}

function onCustomerMessage(event) {
  if (event.session === state.selected) {
    addEntry({ seq_id: event.seq_id, role: 'user', text: event.text });
  } else {
    state.unread.add(event.session);
    render();
  }
}

// ------------------------------------------------------------------ one conversation
function addEntry(m) {
  if (typeof m.seq_id === 'number') {
    if (state.shown.has(m.seq_id)) return;
    state.shown.add(m.seq_id);
  }
  const who = { user: 'Customer', assistant: 'Bot', agent: m.agent || 'Agent', system: '' }[m.role] ?? m.role;
  const node = el('div', { class: `entry ${m.role}` });
  if (m.role === 'system') {
    node.textContent = m.text;
  } else {
    const label = el('span', { class: 'who', text: who });
    if (m.role === 'assistant' && m.source) label.append(el('span', { class: 'badge', text: m.source }));
    if (m.created_ms) label.append(` · ${new Date(m.created_ms).toLocaleTimeString()}`);
    node.append(label, el('div', { class: 'text', text: m.text }));
    // The articles the bot's answer cited, as the customer saw them under it.
    const cited = Array.isArray(m.citations) ? m.citations.map((c) => c.title || c.id).filter(Boolean) : [];
    if (cited.length) node.append(el('div', { class: 'sources', text: `Sources: ${cited.join(' · ')}` }));
  }
  const h = ui.history;
  const nearBottom = h.scrollHeight - h.scrollTop - h.clientHeight < 80;
  h.append(node);
  if (nearBottom || m.role === 'agent') h.scrollTop = h.scrollHeight;
}

function describe(c) {
  switch (c.handoff) {
    case 'waiting': return 'Waiting for an agent';
    case 'taken': return c.agent === agentName() ? 'You have this conversation' : `Taken by ${c.agent || 'another agent'}`;
    case 'closed': return 'Closed';
    case 'bot': return 'With the bot';
    default: return c.handoff || '';
  }
}

function renderDetail() {
  const c = state.conversation;
  if (!c) return;
  const mine = c.handoff === 'taken' && c.agent === agentName();
  ui.title.textContent = conversationLabel({ session: state.selected, user: c.user ||
      [...state.waiting, ...state.mine].find((x) => x.session === state.selected)?.user });
  ui.state.textContent = describe(c);
  ui.take.hidden = c.handoff !== 'waiting';
  ui.release.hidden = !mine;
  ui.close.hidden = !mine;
  ui.reply.hidden = !mine;
}

async function select(session) {
  if (state.selected !== session) {
    state.selected = session;
    state.conversation = null;
    state.shown = new Set();
    ui.history.replaceChildren();
  }
  state.unread.delete(session);
  ui.placeholder.hidden = true;
  ui.detail.hidden = false;
  render();
  await refreshDetail();
  clearInterval(state.detailTimer);
  // The bot's answers and the customer's messages while waiting are not pushed to agents: poll.
  state.detailTimer = setInterval(refreshDetail, 3000);
}

async function refreshDetail() {
  const session = state.selected;
  if (!session) return;
  try {
    const c = await api('GET', `/v1/agent/conversations/${encodeURIComponent(session)}`);
    if (state.selected !== session) return;
    clearAlertIfStale();
    state.conversation = c;
    if (c.handoff === 'taken' && c.agent === agentName()) rememberMine(session, true);
    for (const m of c.messages || []) addEntry(m);
    renderDetail();
  } catch (e) {
    if (state.selected !== session) return;
    failed(e, 'Could not load the conversation');
  }
}

async function act(verb, body = {}) {
  const name = requireName();
  if (!name) return null;
  const session = state.selected;
  return api('POST', `/v1/agent/conversations/${encodeURIComponent(session)}/${verb}`,
             { body: { agent: name, ...body }, headers: { 'X-Agent': name } });
}

ui.take.addEventListener('click', async () => {
  ui.take.disabled = true;
  try {
    const r = await act('take');
    if (!r) return;
    rememberMine(state.selected, true);
    clearAlert();
    await Promise.all([refreshDetail(), refreshLists()]);
    ui.replyText.focus();
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      // already_taken: another agent was first; not_waiting: it went back to the bot or was
      // closed meanwhile (the conversation as the server has it now says which).
      await Promise.all([refreshDetail(), refreshLists()]);
      const c = state.conversation;
      if (e.code === 'not_waiting') {
        const now = c && c.handoff !== 'waiting' ? ` (${describe(c).toLowerCase()})` : '';
        showAlert(`This conversation is no longer waiting${now}.`, 'info');
      } else {
        showAlert('Someone else took this conversation first.', 'info');
      }
    } else {
      failed(e, 'Could not take the conversation');
    }
  } finally {
    ui.take.disabled = false;
  }
});

async function finish(verb, what) {
  const buttons = [ui.release, ui.close];
  buttons.forEach((b) => { b.disabled = true; });
  try {
    if (!(await act(verb))) return;
    rememberMine(state.selected, false);
    await Promise.all([refreshDetail(), refreshLists()]);
    showAlert(what, 'info');
  } catch (e) {
    failed(e, 'That did not work');
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}
ui.release.addEventListener('click', () => finish('release', 'The conversation is back with the bot.'));
ui.close.addEventListener('click', () => finish('close', 'The conversation is closed; the customer is asked to rate it.'));

async function sendReply() {
  const text = ui.replyText.value.trim();
  if (!text) return;
  ui.replySend.disabled = true;
  try {
    const r = await act('reply', { text });
    if (!r) return;
    ui.replyText.value = '';
    addEntry({ seq_id: r.seq_id, role: 'agent', agent: agentName(), text, created_ms: Date.now() });
  } catch (e) {
    failed(e, 'The reply was not sent');
  } finally {
    ui.replySend.disabled = false;
    ui.replyText.focus();
  }
}
ui.reply.addEventListener('submit', (e) => {
  e.preventDefault();
  sendReply();
});
ui.replyText.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    sendReply();
  }
});

// ------------------------------------------------------------------ identity
ui.name.value = localStorage.getItem(NAME_KEY) || '';
ui.name.addEventListener('change', () => {
  localStorage.setItem(NAME_KEY, agentName());
  loadMine().catch(() => {});
  renderDetail();
});
ui.keyField.addEventListener('submit', (e) => {
  e.preventDefault();
  setApiKey(ui.key.value.trim());
  state.keyNeeded = false;
  clearAlert();
  refreshLists().then((error) => { if (!error) showAlert('Key accepted.', 'info'); });
  if (state.selected) refreshDetail();
});
if (apiKey()) {
  ui.keyField.hidden = false;
  ui.key.value = apiKey();
}

setInterval(render, 1000);  // waiting times
refreshLists();
connectSocket();
