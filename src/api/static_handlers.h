// The web pages built into the binary (web/, embedded by src/web/CMakeLists.txt): the demo page
// with the chat widget, the widget's script, the agent console and the operations dashboard.
// Thread-safety: serve_static may be called from any thread (the file table is immutable).
#pragma once

#include "http/message.h"

namespace supportd::api {

// Serves the embedded web pages: "/" (demo page), "/widget.js", "/agent", "/dashboard",
// "/static/<file>"; correct Content-Type, Cache-Control, ETag; 404 JSON for unknown files.
// Answers 304 with no body when If-None-Match names the current ETag.
http::Response serve_static(http::Request& request);

}  // namespace supportd::api
