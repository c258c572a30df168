// The engine node's token publisher (bus/token_sink.h).
#include "bus/token_sink.h"

#include <spdlog/spdlog.h>

#include "bus/wire.h"

namespace supportd::bus {

void TokenSink::on_text(std::string_view text) {
  StreamEvent event;
  event.kind = StreamEvent::Kind::kText;
  event.request_id = flight_->request_id;
  event.attempt = flight_->attempt;
  event.sequence = flight_->next_sequence++;
  event.text = std::string(text);
  if (flight_->silenced.load()) return;
  if (Status s = connection_.publish(flight_->events_subject, encode(event)); !s)
    spdlog::debug("bus: token {} of {} not sent: {}", event.sequence, event.request_id,
                  s.error().message);
}

void TokenSink::on_done(const engine::Completion& completion) {
  if (!flight_->silenced.load()) {
    StreamEvent event;
    event.kind = StreamEvent::Kind::kDone;
    event.request_id = flight_->request_id;
    event.attempt = flight_->attempt;
    event.sequence = flight_->next_sequence++;
    event.completion = completion;
    if (Status s = connection_.publish(flight_->events_subject, encode(event)); !s)
      spdlog::warn("bus: the end of {} not sent: {}", event.request_id, s.error().message);
  }
  std::lock_guard lock(mailbox_->mutex);
  mailbox_->ended.push_back({flight_->key, engine::Clock::now()});
  mailbox_->wake.notify_all();
}

}  // namespace supportd::bus
