// ReplyStream: the producer's data queued under a mutex, the connection woken once per batch,
// and cancellation passed back to the producer's callback.
#include "http/reply_stream.h"

namespace supportd::http {

void ReplyStream::respond(Response response) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_) return;
    pending_.response = std::move(response);
    any_ = true;
    wake = waker_;
  }
  if (wake) wake();
}

void ReplyStream::open(int status, std::string content_type, Headers headers) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_) return;
    pending_.opened = true;
    pending_.status = status;
    pending_.content_type = std::move(content_type);
    pending_.headers = std::move(headers);
    any_ = true;
    wake = waker_;
  }
  if (wake) wake();
}

void ReplyStream::write(std::string data) {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || overflowed_ || data.empty()) return;
    if (buffer_limit_ > 0 && pending_.data.size() + data.size() > buffer_limit_) {
      overflowed_ = true;
      std::string().swap(pending_.data);  // the stream is lost: free what it held
    } else {
      pending_.data += data;
    }
    any_ = true;
    wake = waker_;
  }
  if (wake) wake();
}

void ReplyStream::close() {
  std::function<void()> wake;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || overflowed_) return;
    pending_.closed = true;
    any_ = true;
    wake = waker_;
  }
  if (wake) wake();
}

void ReplyStream::on_cancel(std::function<void()> callback) {
  std::lock_guard lock(mutex_);
  on_cancel_ = std::move(callback);
}

ReplyStream::Batch ReplyStream::take() {
  std::lock_guard lock(mutex_);
  Batch out = std::move(pending_);
  pending_ = Batch{};
  any_ = false;
  return out;
}

bool ReplyStream::has_data() {
  std::lock_guard lock(mutex_);
  return any_;
}

void ReplyStream::set_waker(std::function<void()> waker) {
  std::lock_guard lock(mutex_);
  waker_ = std::move(waker);
}

void ReplyStream::cancel() {
  std::function<void()> callback;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_) return;
    cancelled_ = true;
    callback = std::move(on_cancel_);
    waker_ = nullptr;
  }
  if (callback) callback();
}

bool ReplyStream::cancelled() const {
  std::lock_guard lock(mutex_);
  return cancelled_;
}

void ReplyStream::set_buffer_limit(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  buffer_limit_ = bytes;
}

bool ReplyStream::overflowed() const {
  std::lock_guard lock(mutex_);
  return overflowed_;
}

}  // namespace supportd::http
