// The demo page shows the embed tag with this server's real address.
const snippet = document.getElementById('embed-snippet');
if (snippet) snippet.textContent = `<script src="${location.origin}/widget.js" data-supportd></script>`;
