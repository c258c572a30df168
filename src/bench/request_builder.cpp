// The body and headers of one benchmark request (request_builder.h).
#include "bench/request_builder.h"

#include <boost/json.hpp>

namespace supportd::bench {

namespace json = boost::json;

HttpRequestParts build_request(const BenchOptions& options, const std::string& model,
                               const Workload& workload, const RequestSpec& spec) {
  HttpRequestParts parts;
  json::object body;
  if (!model.empty()) body["model"] = model;
  const std::string& system = workload.system_prompt();
  std::string question = workload.question_text(spec);
  if (options.chat) {
    parts.path = "/v1/chat/completions";
    json::array messages;
    if (!system.empty()) messages.push_back(json::object{{"role", "system"}, {"content", system}});
    messages.push_back(json::object{{"role", "user"}, {"content", std::move(question)}});
    body["messages"] = std::move(messages);
  } else {
    parts.path = "/v1/completions";
    body["prompt"] = system.empty() ? question : system + "\n\n" + question;
  }
  body["stream"] = true;
  body["stream_options"] = json::object{{"include_usage", true}};
  body["max_tokens"] = spec.max_tokens;
  body["ignore_eos"] = true;
  body["temperature"] = options.temperature;
  const char* priority = sched::priority_name(spec.priority);
  if (options.priority_field) body["priority"] = priority;
  if (options.start_timeout_s) body["timeout"] = *options.start_timeout_s;
  parts.body = json::serialize(body);

  parts.headers.emplace_back("Accept", "text/event-stream");
  parts.headers.emplace_back("X-Priority", priority);
  const auto& tenants = workload.options().tenants;
  const std::string& key = spec.tenant >= 0 && spec.tenant < static_cast<int>(tenants.size())
                               ? tenants[static_cast<std::size_t>(spec.tenant)].key
                               : options.api_key;
  if (!key.empty()) parts.headers.emplace_back("Authorization", "Bearer " + key);
  return parts;
}

}  // namespace supportd::bench
