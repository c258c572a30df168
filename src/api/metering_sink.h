// Wraps a GenerationSink to record the request's latencies, tokens and outcome in
// ServingMetrics and to charge the caller's token budget. Same threading as the sink it wraps.
#pragma once

#include <memory>

#include "api/access.h"
#include "api/serving_metrics.h"
#include "engine/request.h"

namespace supportd::api {

std::shared_ptr<engine::GenerationSink> make_metering_sink(
    std::shared_ptr<engine::GenerationSink> inner, ServingMetrics* metrics, Access* access,
    Caller caller, sched::Priority priority);

}  // namespace supportd::api
