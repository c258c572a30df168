// The chat widget: sending, the panel and its controls, mounting on the page.
// One part of widget.js (see boot.js).
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
