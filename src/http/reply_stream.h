// A response produced on another thread (the engine's) and written by the connection: either
// one whole response later, or a streamed body (server-sent events) chunk by chunk.
// Thread-safety: producer methods may be called from any thread; consumer methods from the
// connection only. The producer must end with respond() or close(); after cancel() the
// producer should stop soon (its writes are dropped). The producer never waits: what the client
// has not taken yet waits here, up to a bound (set_buffer_limit) past which the stream overflows.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "http/message.h"

namespace supportd::http {

class ReplyStream {
 public:
  // --- producer ---
  // The whole response; ends the stream.
  void respond(Response response);
  // Starts a streamed body with this status and content type.
  void open(int status, std::string content_type, Headers headers = {});
  // Appends to the streamed body.  REQUIRES: open() was called.
  // When the body waiting to be taken would grow past the buffer limit, the stream overflows
  // instead: this and every later write are dropped, and the consumer is woken to cut it.
  void write(std::string data);
  // Ends the streamed body.
  void close();
  // Called once if the client goes away before the end (set before the stream is returned).
  void on_cancel(std::function<void()> callback);

  // --- consumer ---
  struct Batch {
    std::optional<Response> response;  // a whole response (ends the stream)
    bool opened = false;               // open() happened since the last take
    int status = 200;
    std::string content_type;
    Headers headers;
    std::string data;  // body bytes written since the last take
    bool closed = false;
  };
  // Everything produced since the last call; empty when nothing new.
  Batch take();
  bool has_data();
  // `waker` is called (on the producer's thread) after each producer call.
  void set_waker(std::function<void()> waker);
  // The client went away: drop future writes and run the cancel callback.
  void cancel();
  bool cancelled() const;
  // Streamed body bytes that may wait to be taken; 0 (the default): no bound.
  void set_buffer_limit(std::size_t bytes);
  // True once a write found the buffer full (the client reads too slowly): the stream is lost.
  bool overflowed() const;

 private:
  mutable std::mutex mutex_;
  Batch pending_;                    // guarded by mutex_
  bool any_ = false;                 // guarded by mutex_: pending_ has something
  bool cancelled_ = false;           // guarded by mutex_
  std::size_t buffer_limit_ = 0;     // guarded by mutex_
  bool overflowed_ = false;          // guarded by mutex_
  std::function<void()> waker_;      // guarded by mutex_
  std::function<void()> on_cancel_;  // guarded by mutex_
};

}  // namespace supportd::http
