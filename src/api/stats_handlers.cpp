#include "api/stats_handlers.h"

#include <boost/json.hpp>

#include "engine/engine.h"

namespace supportd::api {
namespace json = boost::json;

http::Response stats(Services& services, http::Request&) {
  const engine::EngineStats s = services.engine->stats();
  json::object waiting;
  for (int p = 0; p < engine::kPriorityCount; ++p) {
    waiting[sched::priority_name(static_cast<sched::Priority>(p))] = s.waiting_by_priority[p];
  }
  json::object engine{{"running", s.running},
                      {"waiting", s.waiting},
                      {"waiting_by_priority", std::move(waiting)},
                      {"kv_cells_used", s.kv_cells_used},
                      {"kv_cells_total", s.kv_cells_total},
                      {"prefix_cache_cells", s.prefix_cache_tokens},
                      {"prefix_lookups", s.prefix_lookups},
                      {"prefix_hits", s.prefix_hits},
                      {"prompt_tokens_reused", s.prompt_tokens_reused},
                      {"steps", s.steps},
                      {"step_tokens", s.step_tokens},
                      {"tokens_generated", s.tokens_generated},
                      {"last_step_ms", s.last_step_ms}};
  return http::Response::json(200,
                              json::serialize(json::object{{"model", services.engine->model().id},
                                                           {"engine", std::move(engine)}}));
}

}  // namespace supportd::api
