// supportd's chat widget. Embed it on any page with one tag:
//
//   <script src="https://HOST/widget.js" data-supportd></script>
//
// Optional attributes on the tag: data-title (panel title), data-lang ("en" or "zh"; default:
// the page's language), data-user (a customer id to open sessions with; an e-mail address or
// any other text is fine: it is sent as 1-64 of A-Z a-z 0-9 - _, others as _), data-api-key (a key
// the server issued for this site), data-open (open the panel at load).
//
// It adds a floating button and a chat panel inside its own shadow DOM (the host page's CSS
// cannot reach it), talks to the server the script came from (docs/api.md, "The
// customer-service desk"): a session remembered in localStorage, the conversation over the
// WebSocket /v1/ws (reconnecting when it drops; POST .../messages with server-sent events when
// WebSockets are unavailable), streamed answers with citations, thumbs, a handoff to a person,
// agent messages and a CSAT prompt when the conversation is closed. A message that did not reach
// the server stays on screen marked "not sent", with a Retry.
(() => {
  'use strict';
  const script = document.currentScript || document.querySelector('script[data-supportd]');
  if (!script || window.__supportdWidget) return;
  const origin = new URL(script.src, location.href).origin;
  const options = script.dataset;

  // ---------------------------------------------------------------- text (English, Chinese)
  const STRINGS = {
    en: {
      title: 'Customer service', open: 'Chat with us', close: 'Close chat',
      placeholder: 'Type your question…', inputLabel: 'Your message', send: 'Send',
      human: 'Talk to a person', humanWaiting: 'Waiting for a person…',
      welcome: 'Hello! Ask me anything about orders, delivery, returns or payment.',
      connecting: 'Connecting…', online: 'Online', reconnecting: 'Connection lost. Reconnecting…',
      offline: 'Cannot reach the server. Retrying…', unavailable: 'Chat is not available right now.',
      fallback: 'Online (without live connection)',
      waiting: 'We are finding someone to help you. You can keep writing here.',
      taken: (a) => `${a} joined the conversation.`, someone: 'A support agent',
      backToBot: 'You are back with the virtual assistant.',
      closed: 'This conversation was closed.',
      csat: 'How would you rate this conversation?', csatThanks: 'Thank you for your rating!',
      star: (n) => `${n} out of 5`,
      newChat: 'Start a new conversation', helpful: 'Helpful', notHelpful: 'Not helpful',
      thanks: 'Thanks for your feedback.', sources: 'Sources', you: 'You', assistant: 'Assistant',
      agent: 'Agent', noAnswer: 'No answer from the server. Please try again.',
      unread: (n) => `${n} new message${n === 1 ? '' : 's'}`,
      source: { faq: 'FAQ', kb: 'Help centre', cache: 'Help centre', model: 'AI',
                fallback: 'Automatic reply', refused: 'Automatic reply', handoff: 'Handoff' },
      error: (m) => `Something went wrong: ${m}`,
      notSent: (m) => `Not sent: ${m}`, retry: 'Retry', retryLabel: (t) => `Retry sending “${t}”`,
      lost: 'the connection was lost', unreachable: 'cannot reach the server',
      slow: 'the server did not answer in time', unknownError: 'unknown error',
      masked: 'Personal details in your message, such as card numbers or e-mail addresses, were hidden.',
      filtered: 'Part of this answer was withheld.',
      count: (n, max) => `${n.toLocaleString('en-US')} / ${max.toLocaleString('en-US')} characters`,
      cut: (max) => `Your text was cut to ${max.toLocaleString('en-US')} characters, the most one message can hold.`,
    },
    zh: {
      title: '在线客服', open: '联系客服', close: '关闭对话',
      placeholder: '请输入您的问题…', inputLabel: '您的消息', send: '发送',
      human: '转人工客服', humanWaiting: '正在等待人工客服…',
      welcome: '您好！关于订单、配送、退货或支付的问题，都可以问我。',
      connecting: '正在连接…', online: '在线', reconnecting: '连接已断开，正在重新连接…',
      offline: '无法连接服务器，正在重试…', unavailable: '在线客服暂时不可用。', fallback: '在线（无实时连接）',
      waiting: '正在为您转接人工客服，您可以继续留言。',
      taken: (a) => `${a} 已加入对话。`, someone: '客服人员',
      backToBot: '已为您转回智能助手。', closed: '本次对话已结束。',
      csat: '请为本次服务评分：', csatThanks: '感谢您的评价！', star: (n) => `${n} 分（满分 5 分）`,
      newChat: '开始新的对话', helpful: '有帮助', notHelpful: '没有帮助',
      thanks: '感谢您的反馈。', sources: '参考来源', you: '我', assistant: '智能助手',
      agent: '客服', noAnswer: '服务器没有回应，请重试。', unread: (n) => `${n} 条新消息`,
      source: { faq: '常见问题', kb: '帮助中心', cache: '帮助中心', model: 'AI',
                fallback: '自动回复', refused: '自动回复', handoff: '转人工' },
      error: (m) => `出错了：${m}`,
      notSent: (m) => `未发送：${m}`, retry: '重试', retryLabel: (t) => `重新发送“${t}”`,
      lost: '连接已断开', unreachable: '无法连接服务器', slow: '服务器未能及时响应',
      unknownError: '未知错误', masked: '您消息中的个人信息（如银行卡号、电子邮箱）已被隐藏。',
      filtered: '部分回答内容已被隐去。', count: (n, max) => `${n} / ${max} 字`,
      cut: (max) => `内容超过 ${max} 字的上限，超出部分已被截去。`,
    },
  };
  const lang = (options.lang || document.documentElement.lang || navigator.language || 'en')
                   .toLowerCase().startsWith('zh') ? 'zh' : 'en';
  const T = STRINGS[lang];

  // The server names users with 1-64 of [A-Za-z0-9_-] (they are part of session ids): a page's
  // customer id such as an e-mail address is sent in that form, never refused.
  function userName(id) {
    const name = String(id).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
    return /[A-Za-z0-9]/.test(name) ? name : 'web';
  }

  // ---------------------------------------------------------------- talking to the server
  class ApiError extends Error {
    constructor(status, message, code) {
      super(message);
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

  // ---------------------------------------------------------------- styles (inside the shadow root)
  const CSS = `
  :host { all: initial; }
  * { box-sizing: border-box; }
  .root {
    --accent: #1d4ed8; --accent-dark: #1e3a8a; --agent: #047857; --text: #1f2937;
    --muted: #4b5563; --line: #d1d5db; --bubble: #f3f4f6; --error: #b91c1c;
    font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
      "Noto Sans", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC",
      "Source Han Sans SC", "WenQuanYi Micro Hei", sans-serif;
    font-size: 15px; line-height: 1.45; color: var(--text);
    position: fixed; right: 20px; bottom: 20px; z-index: 2147483000;
    display: flex; flex-direction: column; align-items: flex-end; gap: 12px;
  }
  button { font: inherit; cursor: pointer; }
  button:focus-visible, a:focus-visible, .log:focus-visible {
    outline: 3px solid #f59e0b; outline-offset: 2px;
  }
  textarea:focus { outline: 2px solid var(--accent); outline-offset: 1px; border-color: var(--accent); }
  .launcher {
    position: relative; width: 60px; height: 60px; border-radius: 50%; border: none;
    background: var(--accent); color: #fff; box-shadow: 0 4px 14px rgba(0,0,0,.25);
    display: grid; place-items: center;
  }
  .launcher:hover { background: var(--accent-dark); }
  .launcher svg { width: 28px; height: 28px; fill: currentColor; }
  .unread {
    position: absolute; top: -4px; right: -4px; min-width: 22px; height: 22px; padding: 0 6px;
    border-radius: 11px; background: #dc2626; color: #fff; font-size: 12px; font-weight: 700;
    display: grid; place-items: center;
  }
  .panel {
    width: 380px; height: min(620px, calc(100vh - 110px)); background: #fff;
    border-radius: 14px; box-shadow: 0 10px 40px rgba(0,0,0,.25); overflow: hidden;
    display: flex; flex-direction: column; border: 1px solid var(--line);
  }
  .panel[hidden], [hidden] { display: none !important; }
  .head {
    background: var(--accent); color: #fff; padding: 12px 14px; display: flex;
    align-items: center; gap: 10px;
  }
  .head .heading { flex: 1; min-width: 0; }
  .head h2 { margin: 0; font-size: 16px; font-weight: 650; }
  .status { font-size: 12.5px; opacity: .95; }
  .status.bad { font-weight: 600; }
  .icon-button {
    background: transparent; border: none; color: inherit; width: 34px; height: 34px;
    border-radius: 8px; display: grid; place-items: center; font-size: 22px; line-height: 1;
  }
  .icon-button:hover { background: rgba(255,255,255,.18); }
  .log { flex: 1; overflow-y: auto; padding: 14px; display: flex; flex-direction: column; gap: 10px; }
  .msg { max-width: 88%; display: flex; flex-direction: column; gap: 4px; }
  .msg .who { font-size: 12px; color: var(--muted); }
  .msg .bubble {
    padding: 9px 12px; border-radius: 14px; white-space: pre-wrap;
    overflow-wrap: anywhere; word-break: normal;
  }
  .msg.user { align-self: flex-end; align-items: flex-end; }
  .msg.user .bubble { background: var(--accent); color: #fff; border-bottom-right-radius: 4px; }
  .msg.user.failed .bubble { background: #fff; color: var(--text); border: 1px solid var(--error); }
  .unsent { display: flex; align-items: center; gap: 8px; font-size: 12.5px; color: var(--error); }
  .unsent button {
    border: 1px solid var(--error); color: var(--error); background: #fff; border-radius: 999px;
    padding: 2px 10px; font-size: 12.5px; font-weight: 600;
  }
  .unsent button:hover:not(:disabled) { background: #fef2f2; }
  .unsent button:disabled { opacity: .55; cursor: default; }
  .msg.assistant { align-self: flex-start; }
  .msg.assistant .bubble { background: var(--bubble); border-bottom-left-radius: 4px; }
  .msg.agent { align-self: flex-start; }
  .msg.agent .bubble {
    background: #ecfdf5; border: 1px solid #6ee7b7; border-bottom-left-radius: 4px;
  }
  .msg.agent .who { color: var(--agent); font-weight: 650; }
  .badge {
    display: inline-block; font-size: 11px; font-weight: 650; letter-spacing: .02em;
    padding: 1px 7px; border-radius: 999px; background: #e0e7ff; color: #3730a3;
    margin-left: 6px; vertical-align: 1px;
  }
  .system {
    align-self: center; text-align: center; font-size: 13px; color: var(--muted);
    background: #fef9c3; border: 1px solid #fde68a; color: #713f12; padding: 6px 10px;
    border-radius: 10px; max-width: 92%;
  }
  .system.error { background: #fee2e2; border-color: #fca5a5; color: var(--error); }
  .notice { font-size: 12.5px; color: #92400e; }
  .citations { display: flex; flex-direction: column; gap: 6px; margin: 2px 0 0; padding: 0; list-style: none; }
  .citations-label { font-size: 12px; color: var(--muted); margin-top: 2px; }
  .cite {
    display: block; border: 1px solid var(--line); border-radius: 10px; padding: 7px 10px;
    background: #fff; color: inherit; text-decoration: none; font-size: 13px;
  }
  a.cite:hover { border-color: var(--accent); }
  .cite strong { display: block; color: var(--accent-dark); font-size: 13px; }
  .cite span {
    display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden;
    color: var(--muted);
  }
  .thumbs { display: flex; align-items: center; gap: 4px; font-size: 12.5px; color: var(--muted); }
  .thumbs button {
    border: 1px solid var(--line); background: #fff; border-radius: 8px; width: 32px; height: 28px;
    color: var(--muted); display: grid; place-items: center; padding: 0;
  }
  .thumbs button svg { width: 16px; height: 16px; fill: currentColor; }
  .thumbs button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
  .typing { display: inline-flex; gap: 4px; padding: 4px 2px; }
  .typing i {
    width: 7px; height: 7px; border-radius: 50%; background: #6b7280; display: block;
    animation: blink 1.2s infinite ease-in-out both;
  }
  .typing i:nth-child(2) { animation-delay: .2s; }
  .typing i:nth-child(3) { animation-delay: .4s; }
  @keyframes blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: 1; } }
  .csat {
    border: 1px solid var(--line); border-radius: 12px; padding: 10px 12px; align-self: stretch;
    margin: 0; background: #f9fafb;
  }
  .csat legend { font-size: 14px; font-weight: 600; padding: 0 4px; }
  .stars { display: flex; gap: 6px; margin-top: 6px; }
  .stars button {
    width: 40px; height: 40px; border-radius: 10px; border: 1px solid var(--line);
    background: #fff; font-size: 16px; font-weight: 700; color: var(--text);
  }
  .stars button:hover, .stars button[aria-pressed="true"] { background: var(--accent); color: #fff; border-color: var(--accent); }
  .actions { display: flex; gap: 8px; padding: 8px 12px 0; flex-wrap: wrap; }
  .pill {
    border: 1px solid var(--accent); color: var(--accent); background: #fff; border-radius: 999px;
    padding: 5px 12px; font-size: 13px; font-weight: 600;
  }
  .pill:hover:not(:disabled) { background: #eff6ff; }
  .pill:disabled { color: var(--muted); border-color: var(--line); cursor: default; }
  form { display: flex; gap: 8px; padding: 10px 12px 12px; align-items: flex-end; }
  .counter { padding: 6px 14px 0; font-size: 12px; color: var(--muted); text-align: right; }
  .counter.full { color: var(--error); font-weight: 600; }
  textarea {
    flex: 1; resize: none; font: inherit; border: 1px solid #9ca3af; border-radius: 12px;
    padding: 9px 12px; max-height: 120px; min-height: 42px; color: var(--text); background: #fff;
  }
  .send {
    height: 42px; padding: 0 16px; border-radius: 12px; border: none; background: var(--accent);
    color: #fff; font-weight: 650;
  }
  .send:disabled { background: #9ca3af; cursor: default; }
  .sr-only {
    position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
    clip: rect(0,0,0,0); white-space: nowrap; border: 0;
  }
  @media (max-width: 480px) {
    .root { right: 12px; bottom: 12px; }
    .panel { position: fixed; inset: 0; width: auto; height: auto; border-radius: 0; border: none; }
    .root.open .launcher { display: none; }
  }
  @media (prefers-reduced-motion: reduce) { .typing i { animation: none; opacity: .6; } }
  `;

  const ICON_CHAT = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 6.5a1.5 1.5 0 1 0 0 .01zm5 0a1.5 1.5 0 1 0 0 .01zm5 0a1.5 1.5 0 1 0 0 .01z"/></svg>';
  const ICON_UP = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3a1.5 1.5 0 0 0-.5-1.1L13.2 1 6.6 7.6A2 2 0 0 0 6 9v10a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z"/></svg>';
  const ICON_DOWN = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M22 3h-4v12h4V3zM2 14a2 2 0 0 0 2 2h6.3l-1 4.6v.3c0 .4.2.8.5 1.1l1.1 1 6.5-6.6c.4-.4.6-.9.6-1.4V5a2 2 0 0 0-2-2H7a2 2 0 0 0-1.8 1.2l-3 7.1c-.1.2-.2.5-.2.7v2z"/></svg>';

  // ---------------------------------------------------------------- DOM
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
  const style = document.createElement('style');
  style.textContent = CSS;
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
  const MAX_CHARS = 4000;  // the textarea's maxlength (the server refuses more than 4000 bytes)
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
  shadow.append(style, root);

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

  // ---------------------------------------------------------------- session and history
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

  // ---------------------------------------------------------------- sending
  function setBusy(busy) {
    sendButton.disabled = busy;
    for (const retry of log.querySelectorAll('.retry')) retry.disabled = busy;
  }

  async function send(text) {
    text = text.trim();
    if (!text) return;
    try {
      await start();
    } catch {
      return;
    }
    const node = userMessage(text);
    input.value = '';
    autoGrow();
    countChars();
    await deliver(node);
  }

  // Sends the message shown in node; again, at the end of the log, when retry is true.
  async function deliver(node, retry = false) {
    if (retry) {
      node.classList.remove('failed');
      node.querySelector('.unsent')?.remove();
      add(node);
      input.focus();  // the Retry button had it
      try {
        await start();
      } catch (e) {
        markFailed(node, e);
        return;
      }
    }
    const toPerson = state.handoff === 'taken';
    if (state.socketOpen && state.socket) {
      sending(node, state.socket);
      state.socket.send(JSON.stringify({ type: 'message', text: node.text }));
      if (!toPerson) {
        setBusy(true);
        state.pending = add(answerNode());  // typing dots until the first event
        armPendingTimer();
      }
      return;
    }
    sending(node, null);
    setBusy(true);
    try {
      await sendOverHttp(node);
    } catch (e) {
      if (node.heard) showError(e);  // the message arrived; its answer did not
      else markFailed(node, e);
    } finally {
      setBusy(false);
    }
  }

  // ---------------------------------------------------------------- panel
  function autoGrow() {
    input.style.height = 'auto';
    input.style.height = `${Math.min(input.scrollHeight + 2, 120)}px`;
  }

  function openPanel() {
    panel.hidden = false;
    root.classList.add('open');
    launcher.setAttribute('aria-expanded', 'true');
    state.unread = 0;
    unreadBadge.hidden = true;
    launcher.setAttribute('aria-label', T.open);  // a disclosure button: aria-expanded tells the state
    input.focus();
    start().then(scrollDown, () => {});
  }
  function closePanel() {
    panel.hidden = true;
    root.classList.remove('open');
    launcher.setAttribute('aria-expanded', 'false');
    launcher.setAttribute('aria-label', T.open);
    launcher.focus();
  }

  launcher.addEventListener('click', () => (panel.hidden ? openPanel() : closePanel()));
  closeButton.addEventListener('click', closePanel);
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      closePanel();
    }
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!sendButton.disabled) send(input.value);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!sendButton.disabled) send(input.value);
    }
  });
  // Near the limit a counter shows; a paste that maxlength cut short says so (until the text is
  // under the limit again).
  function countChars() {
    const n = input.value.length;
    if (state.pasted) state.cut = n - state.pasted.before < state.pasted.text.length;
    state.pasted = null;
    if (n < MAX_CHARS) state.cut = false;
    counter.textContent = state.cut ? T.cut(MAX_CHARS) : T.count(n, MAX_CHARS);
    counter.hidden = n < MAX_CHARS * 0.9;
    counter.classList.toggle('full', n >= MAX_CHARS);
    if (state.cut) counter.setAttribute('role', 'alert');
    else counter.removeAttribute('role');
  }
  input.addEventListener('paste', (e) => {
    const text = (e.clipboardData?.getData('text/plain') ?? '').replace(/\r\n?/g, '\n');
    state.pasted = { before: input.value.length - (input.selectionEnd - input.selectionStart), text };
    setTimeout(countChars);  // after the input event, or instead of it when nothing fitted
  });
  input.addEventListener('input', () => {
    autoGrow();
    countChars();
  });

  humanButton.addEventListener('click', async () => {
    humanButton.disabled = true;
    try {
      await start();
    } catch {
      humanButton.disabled = false;
      return;
    }
    try {
      const r = await api('POST', `/v1/sessions/${encodeURIComponent(state.session)}/handoff`, {});
      setHandoff(r.handoff || 'waiting', r.agent);
    } catch (e) {
      humanButton.disabled = state.handoff !== 'bot';
      showError(e);
    }
  });

  newChatButton.addEventListener('click', async () => {
    if (state.socket) {
      const s = state.socket;
      state.socket = null;
      s.close();
    }
    stopPolling();
    clearTimeout(state.reconnectTimer);
    remember(null);
    Object.assign(state, { session: null, handoff: 'bot', agent: '', socketOpen: false,
                           failures: 0, lastSeq: 0, shown: new Set(), pending: null, unconfirmed: [],
                           starting: null, following: true });
    log.replaceChildren();
    setHandoff('bot', undefined, false);
    await start().catch(() => {});
    input.focus();
  });

  const mount = () => {
    document.body.append(host);
    // A returning customer: reconnect at once so agent messages arrive with the panel closed.
    if (recalled()) start().catch(() => {});
    if (options.open !== undefined && options.open !== 'false') openPanel();
  };
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);

  window.__supportdWidget = { open: openPanel, close: closePanel, origin };
})();
