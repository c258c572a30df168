// The chat widget: styles (inside its shadow root) and icons.
// One part of widget.js (see boot.js).
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
