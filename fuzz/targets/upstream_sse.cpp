// Fuzz target: what the upstream engine reads from an OpenAI-compatible server's stream: the
// server-sent events (engine/upstream/sse_parser.h) and each event's JSON
// (engine/upstream/stream_event.h). The first byte chooses the size of the pieces the rest is
// fed in, as the network may cut it anywhere: the events must be the same as when fed whole.
#include "engine/upstream/sse_parser.h"
#include "engine/upstream/stream_event.h"

#include "fuzz_check.h"

using namespace supportd;
using engine::upstream::SseParser;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = data[0] % 16 + 1;
  const std::string_view stream = fuzz::text_of(data + 1, size - 1);

  SseParser whole;
  const std::vector<std::string> events = whole.feed(stream);
  SseParser cut;
  std::vector<std::string> pieced;
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    for (std::string& event : cut.feed(stream.substr(at, piece)))
      pieced.push_back(std::move(event));
  }
  fuzz::require(events == pieced, "events do not depend on where the stream was cut");

  for (const std::string& event : events) {
    fuzz::require(event.size() <= stream.size(), "an event's data comes from the stream");
    const auto decoded = engine::upstream::decode_stream_event(event);
    if (decoded && decoded->error) fuzz::require(!decoded->error->empty(), "an error is shown");
  }
  return 0;
}
