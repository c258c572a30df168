// How serve's log lines look on stderr (--log-format). Both formats mask personal data in the
// message as the transcripts are (filter/pii_masker.h; the slow-request line too), and name
// the request a line was written for (obs/trace/current.h: the thread's current request):
//   text: spdlog's line, then " [trace <id> request <id>]";
//   json: one object per line: time (UTC, ms), level, message, logger, trace_id, span_id,
//         request_id, tenant, route (the last five only for a request's lines).
// Thread-safety: the formatters are used as spdlog requires (one call at a time per sink);
// use_log_format() once, at start, before other threads log.
#pragma once

#include <memory>

#include <spdlog/formatter.h>

#include "app/serve_config.h"

namespace supportd::app {

std::unique_ptr<spdlog::formatter> make_log_formatter(LogFormat format);

// Sets the formatter of spdlog's default logger.
void use_log_format(LogFormat format);

}  // namespace supportd::app
