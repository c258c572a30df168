// Loading a model version at run time (see router_engine.h, load_version): a placeholder in
// the table at once (loading), the file checked and the model loaded on a thread of the
// router, the engine's warm-up and one check request (warming), then ready; any failure
// leaves a failed version with the reason, which never takes traffic.
#include <atomic>
#include <chrono>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "engine/router/router_engine.h"
#include "engine/router/router_table.h"

namespace supportd::engine::router {
namespace {

constexpr std::chrono::milliseconds kPoll{10};

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The check request's end, polled by the loading thread (the engine's thread signals no one).
class CheckSink final : public GenerationSink {
 public:
  void on_text(std::string_view text) override { pieces_ += text.empty() ? 0 : 1; }
  void on_done(const Completion& completion) override {
    reason_ = completion.reason;
    message_ = completion.error.message;
    done_.store(true, std::memory_order_release);
  }
  bool done() const { return done_.load(std::memory_order_acquire); }
  // REQUIRES: done().
  Status verdict() const {
    if ((reason_ == FinishReason::kStop || reason_ == FinishReason::kLength) && pieces_ > 0)
      return {};
    return Error::make(
        ErrorCode::kInternal,
        fmt::format("its check request ended {} after {} pieces of text{}{}",
                    finish_reason_name(reason_), pieces_, message_.empty() ? "" : ": ", message_));
  }

 private:
  std::atomic<bool> done_{false};
  FinishReason reason_ = FinishReason::kError;  // written before done_, read after
  std::string message_;
  int pieces_ = 0;
};

// One short request, as a customer's, on `engine`: ok when it produced text and ended well.
Status check_request(Engine& engine, std::stop_token stop, Clock::time_point give_up) {
  GenerationRequest request;
  request.id = "warm-up-check";
  request.prompt = "Hello! My parcel has not arrived yet. Where is it?";
  request.max_tokens = 4;
  request.ignore_eos = true;
  request.sampling.temperature = 0;
  auto sink = std::make_shared<CheckSink>();
  auto id = engine.submit(std::move(request), sink);
  if (!id) return id.error();
  while (!sink->done() && !stop.stop_requested() && Clock::now() < give_up)
    std::this_thread::sleep_for(kPoll);
  if (!sink->done()) {
    engine.cancel(*id);
    return Error::make(ErrorCode::kDeadline, "its check request did not finish in time");
  }
  return sink->verdict();
}

}  // namespace

Status RouterEngine::load_version(const std::string& name, const std::string& path,
                                  VersionLoader loader, std::chrono::milliseconds warmup_timeout) {
  auto placeholder = std::make_shared<Slot>();
  {
    std::lock_guard change(change_mutex_);
    const auto current = table();
    if (Status named = check_new_version_name(*current, name); !named) return named;
    placeholder->name = name;
    placeholder->index = current->by_index.size() + 1;
    placeholder->state = VersionState::kLoading;
    placeholder->facts.path = path;
    placeholder->card.id = name;
    auto next = std::make_shared<Table>(*current);
    next->versions.emplace(name, placeholder);
    next->by_index.push_back(placeholder);
    publish(std::move(next));
  }
  spdlog::info("model version {}: loading {}", name, path);
  std::lock_guard lock(drains_mutex_);
  drains_.emplace_back([this, placeholder, loader = std::move(loader),
                        warmup_timeout](std::stop_token stop) mutable {
    finish_load(std::move(stop), placeholder, std::move(loader), warmup_timeout);
  });
  return {};
}

void RouterEngine::replace_slot(const std::shared_ptr<Slot>& previous, std::shared_ptr<Slot> next) {
  std::lock_guard change(change_mutex_);
  auto changed = std::make_shared<Table>(*table());
  changed->versions[next->name] = next;
  changed->by_index[next->index - 1] = next;
  for (auto& [deployment_name, deployment] : changed->deployments) {
    for (auto& slot : deployment.slots) {
      if (slot == previous) slot = next;
    }
    if (deployment.shadow == previous) deployment.shadow = next;
  }
  publish(std::move(changed));
}

void RouterEngine::finish_load(std::stop_token stop, std::shared_ptr<Slot> placeholder,
                               VersionLoader loader, std::chrono::milliseconds warmup_timeout) {
  const auto started = Clock::now();
  std::shared_ptr<Slot> current = placeholder;
  // Leaves a failed version (its engine, if any, shut down): it never takes traffic.
  const auto fail = [&](VersionFacts facts, const std::string& reason) {
    spdlog::error("model version {} failed to load: {}", placeholder->name, reason);
    if (current->engine) current->engine->shutdown();
    auto failed = std::make_shared<Slot>();
    failed->name = placeholder->name;
    failed->index = placeholder->index;
    failed->state = VersionState::kFailed;
    failed->reason = reason;
    failed->facts = std::move(facts);
    failed->card.id = placeholder->name;
    failed->load_ms = milliseconds_since(started);
    replace_slot(current, std::move(failed));
  };
  VersionFacts known = placeholder->facts;
  auto facts = loader.inspect();
  if (!facts) return fail(known, facts.error().message);
  if (auto mismatch = sha256_mismatch(*facts)) return fail(*facts, *mismatch);
  if (stop.stop_requested()) return fail(*facts, "the server stopped while it was loading");
  auto engine = loader.create();
  if (!engine) return fail(*facts, engine.error().message);
  auto warming = std::make_shared<Slot>();
  warming->name = placeholder->name;
  warming->index = placeholder->index;
  warming->state = VersionState::kWarming;
  warming->facts = *facts;
  warming->engine = std::move(engine).value();
  describe_slot(*warming);
  warming->load_ms = milliseconds_since(started);
  replace_slot(current, warming);
  current = warming;
  spdlog::info("model version {}: loaded in {:.0f} ms, warming up", warming->name,
               warming->load_ms);
  // The engine's own warm-up (a representative batch, before its ready()), then one request
  // through submit as a customer's would go.
  const auto warm_started = Clock::now();
  const auto give_up = warm_started + warmup_timeout;
  while (!warming->engine->ready() && !stop.stop_requested() && Clock::now() < give_up)
    std::this_thread::sleep_for(kPoll);
  if (!warming->engine->ready()) {
    return fail(
        *facts,
        stop.stop_requested()
            ? "the server stopped while it was warming up"
            : fmt::format(
                  "not warmed up within {} s",
                  std::chrono::duration_cast<std::chrono::seconds>(warmup_timeout).count()));
  }
  if (Status checked = check_request(*warming->engine, stop, give_up); !checked)
    return fail(*facts, "warm-up: " + checked.error().message);
  warming->warmup_ms.store(milliseconds_since(warm_started));
  warming->state.store(VersionState::kReady);
  spdlog::info(
      "model version {}: ready (warm-up {:.0f} ms); give it traffic with PUT "
      "/admin/routes/DEPLOYMENT",
      warming->name, warming->warmup_ms.load());
}

}  // namespace supportd::engine::router
