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
//
// The script is built from the parts in web/widget/: src/web/CMakeLists.txt joins them, this
// one first, inside one function (so they share one scope and the page's globals stay clean)
// into the widget.js the server sends. This part: the script tag that loaded us (its origin is
// the server, its data-* attributes the options).
const script = document.currentScript || document.querySelector('script[data-supportd]');
if (!script || window.__supportdWidget) return;
const origin = new URL(script.src, location.href).origin;
const options = script.dataset;
