// The chat widget: the panel, the conversation state, messages, answers, handoff and CSAT.
// One part of widget.js (see boot.js).
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k === 'html') node.innerHTML = v;  // only for the constant icons above
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const host = el('div', { id: 'supportd-widget' });
const shadow = host.attachShadow({ mode: 'open' });
// The widget's style as a constructed style sheet where the browser has them: no inline <style>,
// so a page whose Content-Security-Policy allows no inline styles (supportd's own) lets it in.
let style = null;
if ('adoptedStyleSheets' in shadow && typeof CSSStyleSheet === 'function' &&
    typeof CSSStyleSheet.prototype.replaceSync === 'function') {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(CSS);
  shadow.adoptedStyleSheets = [sheet];
} else {
  style = document.createElement('style');
  style.textContent = CSS;
}
const titleText = options.title || T.title;
const uid = Math.random().toString(36).slice(2, 8);

const unreadBadge = el('span', { class: 'unread', hidden: true, 'aria-hidden': 'true' });
const launcher = el('button', {
  class: 'launcher', type: 'button', 'aria-label': T.open, 'aria-expanded': 'false',
  'aria-controls': `sd-panel-${uid}`, title: T.open, html: ICON_CHAT,
});
launcher.append(unreadBadge);
const statusLine = el('div', { class: 'status', role: 'status', text: '' });
const closeButton = el('button', { class: 'icon-button', type: 'button', 'aria-label': T.close,
                                   title: T.close, text: '×' });
const log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite',
                        'aria-label': titleText, tabindex: '0' });
const humanButton = el('button', { class: 'pill human', type: 'button', text: T.human });
const newChatButton = el('button', { class: 'pill', type: 'button', text: T.newChat, hidden: true });
const MAX_CHARS = 4000;  // the textarea's maxlength (the server refuses more than 4000 characters)
const input = el('textarea', { id: `sd-input-${uid}`, rows: '1', maxlength: String(MAX_CHARS),
                               placeholder: T.placeholder, autocomplete: 'off',
                               'aria-describedby': `sd-count-${uid}` });
const counter = el('div', { class: 'counter', id: `sd-count-${uid}`, hidden: true });
const sendButton = el('button', { class: 'send', type: 'submit', text: T.send });
const form = el('form', {},
                el('label', { class: 'sr-only', for: `sd-input-${uid}`, text: T.inputLabel }),
                input, sendButton);
const panel = el('section', { class: 'panel', id: `sd-panel-${uid}`, role: 'dialog',
                              'aria-labelledby': `sd-title-${uid}`, hidden: true },
  el('div', { class: 'head' },
     el('div', { class: 'heading' }, el('h2', { id: `sd-title-${uid}`, text: titleText }), statusLine),
     closeButton),
  log,
  el('div', { class: 'actions' }, humanButton, newChatButton),
  counter, form);
const root = el('div', { class: 'root', lang: lang === 'zh' ? 'zh-CN' : 'en' }, panel, launcher);
if (style) shadow.append(style);
shadow.append(root);

// ---------------------------------------------------------------- state
const storageKey = `supportd.session:${origin}`;
const state = {
  session: null,
  handoff: 'bot',
  agent: '',
  socket: null,
  socketOpen: false,
  everOpened: false,        // the socket has worked at least once
  failures: 0,              // consecutive failed connection attempts
  fallback: !('WebSocket' in window),
  reconnectTimer: null,
  pollTimer: null,
  lastSeq: 0,               // the newest seq_id shown
  shown: new Set(),         // seq_ids shown
  pending: null,            // the answer being streamed over the socket
  pendingTimer: null,
  unread: 0,
  starting: null,           // the promise of start()
  startFailed: false,
  retryTimer: null,
  following: true,          // the log keeps to its end (until the customer scrolls up)
  lastTop: 0,               // the log's scrollTop as last seen
  unconfirmed: [],          // the customer's messages sent, their seq_id not known yet
  pasted: null,             // what a paste should insert: {before, text}
  cut: false,               // the last paste did not fit
};

function remember(session) {
  try {
    if (session) localStorage.setItem(storageKey, session);
    else localStorage.removeItem(storageKey);
  } catch { /* storage disabled: the conversation lasts as long as the page */ }
}
function recalled() {
  try { return localStorage.getItem(storageKey); } catch { return null; }
}

// The log follows what is added while the customer is at its end. A scroll that moves up is
// theirs (what we add never moves it up): from then on it stays put until they are back at
// the end or send a message.
function scrollDown() {
  log.scrollTop = log.scrollHeight;
  state.lastTop = log.scrollTop;
  state.following = true;
}
function follow() {
  if (state.following) scrollDown();
}
log.addEventListener('scroll', () => {
  if (log.scrollHeight - log.scrollTop - log.clientHeight < 4) state.following = true;
  else if (log.scrollTop < state.lastTop - 1) state.following = false;
  state.lastTop = log.scrollTop;
});
// Scrolls just enough to show all of node (something the customer is looking at grew).
function reveal(node) {
  const below = node.getBoundingClientRect().bottom + 14 - log.getBoundingClientRect().bottom;
  if (below > 0) log.scrollTop += below;
}
function add(node) {
  log.append(node);
  if (node.classList.contains('user')) scrollDown();
  else follow();
  return node;
}
function systemLine(text, isError = false) {
  return add(el('div', { class: isError ? 'system error' : 'system',
                         role: isError ? 'alert' : undefined, text }));
}
function showError(e) {
  systemLine(T.error(e.message || String(e)), true);
}
function setStatus(text, bad = false) {
  statusLine.textContent = text;
  statusLine.classList.toggle('bad', bad);
}
function noteUnread() {
  if (!panel.hidden) return;
  state.unread += 1;
  unreadBadge.textContent = String(state.unread);
  unreadBadge.hidden = false;
  launcher.setAttribute('aria-label', `${T.open} (${T.unread(state.unread)})`);
}
function markShown(seq) {
  if (typeof seq !== 'number') return;
  state.shown.add(seq);
  if (seq > state.lastSeq) state.lastSeq = seq;
}

// A message bubble. kind: user | assistant | agent.
function messageNode(kind, text, who) {
  const bubble = el('div', { class: 'bubble', text });
  const node = el('div', { class: `msg ${kind}` },
                  el('div', { class: 'who', text: who }), bubble);
  node.bubble = bubble;
  return node;
}

function userMessage(text, seq) {
  markShown(seq);
  const node = add(messageNode('user', text, T.you));
  node.text = text;
  return node;
}

// The customer's messages on their way: each learns its seq_id from its answer's done event,
// or from the history when a poll sees it first, and is then never shown a second time.
function sending(node, socket) {
  Object.assign(node, { after: state.lastSeq, socket, heard: false });
  state.unconfirmed.push(node);
}
function confirm(node, seq) {
  state.unconfirmed = state.unconfirmed.filter((n) => n !== node);
  node.seq = seq;
  markShown(seq);
}
// The oldest message sent over the socket and not yet answered (answers come in order).
function socketQuestion() {
  return state.unconfirmed.find((n) => n.socket && n.socket === state.socket);
}

// The message in node did not reach the server: it says so, with a Retry unless the server
// refused the message itself.
function markFailed(node, e) {
  state.unconfirmed = state.unconfirmed.filter((n) => n !== node);
  node.classList.add('failed');
  node.querySelector('.unsent')?.remove();
  const row = el('div', { class: 'unsent' },
                 el('span', { role: 'alert', text: T.notSent(e.message || String(e)) }));
  const refused = e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
  if (!refused) {
    const short = node.text.length > 40 ? `${node.text.slice(0, 40)}…` : node.text;
    row.append(el('button', { class: 'retry', type: 'button', text: T.retry, 'aria-label': T.retryLabel(short),
                              disabled: sendButton.disabled, onclick: () => deliver(node, true) }));
  }
  node.append(row);
  follow();
}

function agentMessage(text, agent, seq) {
  if (typeof seq === 'number' && state.shown.has(seq)) return;
  markShown(seq);
  add(messageNode('agent', text, agent || state.agent || T.someone));
  noteUnread();
}

function typingDots() {
  return el('span', { class: 'typing', 'aria-label': '…' }, el('i'), el('i'), el('i'));
}

// An assistant answer, filled in as events arrive.
function answerNode() {
  const node = messageNode('assistant', '', T.assistant);
  node.bubble.append(typingDots());
  node.text = '';
  node.setAttribute('aria-busy', 'true');
  return node;
}

function setBadge(node, source) {
  const label = T.source[source];
  if (!label || node.querySelector('.badge')) return;
  node.querySelector('.who').append(el('span', { class: 'badge', 'data-source': source, text: label }));
}

function setCitations(node, citations) {
  node.querySelector('.cites')?.remove();
  if (!Array.isArray(citations) || citations.length === 0) return;
  const list = el('ul', { class: 'citations' });
  for (const c of citations) {
    const body = [el('strong', { text: c.title || c.id || '' }), el('span', { text: c.snippet || '' })];
    const card = c.url && /^https?:\/\//.test(c.url)
        ? el('a', { class: 'cite', href: c.url, target: '_blank', rel: 'noopener' }, ...body)
        : el('div', { class: 'cite', title: c.id || undefined }, ...body);
    list.append(el('li', {}, card));
  }
  node.bubble.after(el('div', { class: 'cites' },
                       el('div', { class: 'citations-label', text: T.sources }), list));
}

function addThumbs(node, seq) {
  if (typeof seq !== 'number' || node.querySelector('.thumbs')) return;
  const thanks = el('span', { role: 'status' });
  const up = el('button', { type: 'button', 'aria-label': T.helpful, title: T.helpful,
                            'aria-pressed': 'false', html: ICON_UP });
  const down = el('button', { type: 'button', 'aria-label': T.notHelpful, title: T.notHelpful,
                              'aria-pressed': 'false', html: ICON_DOWN });
  const rate = async (thumb, button, other) => {
    const previous = [button.getAttribute('aria-pressed'), other.getAttribute('aria-pressed')];
    button.setAttribute('aria-pressed', 'true');
    other.setAttribute('aria-pressed', 'false');
    try {
      await api('POST', `/v1/sessions/${encodeURIComponent(state.session)}/feedback`,
                { seq_id: seq, thumb });
      thanks.textContent = T.thanks;
    } catch (e) {
      button.setAttribute('aria-pressed', previous[0]);
      other.setAttribute('aria-pressed', previous[1]);
      showError(e);
    }
  };
  up.addEventListener('click', () => rate('up', up, down));
  down.addEventListener('click', () => rate('down', down, up));
  node.append(el('div', { class: 'thumbs' }, up, down, thanks));
}

// Applies one stream event (citations, token, notice, done) to an answer node.
function applyAnswerEvent(node, event) {
  if (event.type === 'citations') {
    setCitations(node, event.citations);
  } else if (event.type === 'token') {
    if (node.text === '') node.bubble.textContent = '';
    node.text += event.text || '';
    node.bubble.textContent = node.text;
  } else if (event.type === 'notice') {
    node.append(el('div', { class: 'notice', text: event.text || '' }));
  } else if (event.type === 'done') {
    finishAnswer(node, event);
    return true;
  }
  follow();
  return false;
}

// What the customer reads for an answer's notice, a code ("masked", "filtered: <category>",
// "refused: <category>"): "refused" needs none (the answer says so itself), and neither does
// a code this version does not know.
function noticeText(code) {
  if (code === 'masked') return T.masked;
  if (typeof code === 'string' && code.startsWith('filtered')) return T.filtered;
  return '';
}

function finishAnswer(node, event) {
  const answer = event.answer || {};
  node.removeAttribute('aria-busy');
  markShown(event.message_seq_id);
  if (typeof answer.seq_id === 'number' && state.shown.has(answer.seq_id)) {
    node.remove();  // already shown (the same answer came another way)
    return;
  }
  markShown(answer.seq_id);
  const text = answer.text ?? node.text;
  if (!text) {
    node.remove();  // e.g. source "agent": the message went to the person, no answer here
  } else {
    node.text = text;
    node.bubble.textContent = text;
    setBadge(node, answer.source);
    if (answer.citations) setCitations(node, answer.citations);
    const notice = noticeText(answer.notice);
    if (notice && !node.querySelector('.notice')) node.append(el('div', { class: 'notice', text: notice }));
    if (answer.source !== 'refused') addThumbs(node, answer.seq_id);
    noteUnread();
  }
  if (answer.handoff) setHandoff(answer.handoff, answer.agent);
  follow();
}

// ---------------------------------------------------------------- handoff and CSAT
function setHandoff(next, agent, announce = true) {
  const previous = state.handoff;
  if (agent) state.agent = agent;
  state.handoff = next;
  humanButton.disabled = next !== 'bot';
  humanButton.textContent = next === 'waiting' ? T.humanWaiting : T.human;
  humanButton.hidden = next === 'taken' || next === 'closed';
  newChatButton.hidden = next !== 'closed';
  if (!announce || previous === next) return;
  if (next === 'waiting') systemLine(T.waiting);
  else if (next === 'taken') systemLine(T.taken(agent || state.agent || T.someone));
  else if (next === 'bot' && previous !== 'bot') systemLine(T.backToBot);
  else if (next === 'closed') {
    systemLine(T.closed);
    askCsat();
  }
  if (next !== 'bot') noteUnread();
}

function askCsat() {
  const key = `${storageKey}:csat:${state.session}`;
  let done = false;
  try { done = localStorage.getItem(key) === '1'; } catch { /* ignore */ }
  if (done || log.querySelector('.csat')) return;
  const legendId = `sd-csat-${uid}`;
  const thanks = el('div', { role: 'status' });
  const stars = el('div', { class: 'stars', role: 'group', 'aria-labelledby': legendId });
  for (let n = 1; n <= 5; n++) {
    const b = el('button', { type: 'button', 'aria-label': T.star(n), 'aria-pressed': 'false',
                             text: `${n}★`, 'data-score': String(n) });
    b.addEventListener('click', async () => {
      for (const other of stars.children) other.disabled = true;
      try {
        await api('POST', `/v1/sessions/${encodeURIComponent(state.session)}/feedback`, { csat: n });
        b.setAttribute('aria-pressed', 'true');
        thanks.textContent = T.csatThanks;
        reveal(box);
        try { localStorage.setItem(key, '1'); } catch { /* ignore */ }
      } catch (e) {
        for (const other of stars.children) other.disabled = false;
        showError(e);
      }
    });
    stars.append(b);
  }
  const box = add(el('fieldset', { class: 'csat' }, el('legend', { id: legendId, text: T.csat }), stars, thanks));
}
