// SerialSink: one event at a time, in order, and a sink that re-enters its engine from on_text
// (the desk cancels its own request) sees the end after that on_text returns, not inside it.
#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

#include "engine/remote/serial_sink.h"

namespace supportd::engine::remote {
namespace {

struct Recorder : GenerationSink {
  std::vector<std::string> events;
  int depth = 0;
  int max_depth = 0;
  std::function<void()> inside_text;
  void on_text(std::string_view text) override {
    ++depth;
    max_depth = std::max(max_depth, depth);
    events.emplace_back(text);
    if (inside_text) std::exchange(inside_text, nullptr)();
    std::string closing(1, '/');
    closing.append(text);
    events.push_back(std::move(closing));
    --depth;
  }
  void on_done(const Completion& completion) override {
    ++depth;
    max_depth = std::max(max_depth, depth);
    events.push_back(std::string("done:") + finish_reason_name(completion.reason));
    --depth;
  }
};

TEST(SerialSinkTest, AnEndQueuedFromInsideOnTextRunsAfterIt) {
  auto recorder = std::make_shared<Recorder>();
  SerialSink serial(recorder);
  recorder->inside_text = [&] {
    Completion cancelled;
    cancelled.reason = FinishReason::kCancelled;
    EXPECT_TRUE(serial.done(cancelled));
  };
  serial.text("a");
  serial.text("b");  // after the end: dropped
  EXPECT_EQ(recorder->events, (std::vector<std::string>{"a", "/a", "done:cancelled"}));
  EXPECT_EQ(recorder->max_depth, 1);
  EXPECT_FALSE(serial.done(Completion{}));  // one end only
}

TEST(SerialSinkTest, TwoThreadsNeverCallTheSinkAtOnce) {
  auto recorder = std::make_shared<Recorder>();
  SerialSink serial(recorder);
  std::thread a([&] {
    for (int i = 0; i < 2000; ++i)
      serial.text("x");
  });
  std::thread b([&] {
    for (int i = 0; i < 2000; ++i)
      serial.text("y");
  });
  a.join();
  b.join();
  serial.done(Completion{});
  EXPECT_EQ(recorder->max_depth, 1);
  EXPECT_EQ(recorder->events.size(), 8001u);
  EXPECT_EQ(recorder->events.back(), "done:stop");
}

}  // namespace
}  // namespace supportd::engine::remote
