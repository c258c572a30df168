// Fuzz target: the cluster's wire format (bus/wire.h), as an engine or gateway reads what another
// node published on NATS, where any bytes may arrive. The first byte chooses the message kind,
// the rest is the message. Any bytes decode or give kCorrupt with a message; what decodes
// encodes to a message that decodes again to the same message: the same fields and values,
// numbers with a fraction within a millionth (Boost.JSON 1.81 parses them to the nearest double
// or one next to it, and a float field rounds that), a work order without its deadline, which
// travels as wall-clock time and moves with the clocks.
#include <algorithm>
#include <cmath>

#include <boost/json.hpp>

#include "bus/wire.h"
#include "fuzz_check.h"

using namespace supportd;

namespace {

namespace json = boost::json;

// The same JSON, numbers with a fraction compared within a millionth of their size.
bool same(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) {
    if (!a.is_number() || !b.is_number()) return false;
    const double x = a.to_number<double>(), y = b.to_number<double>();
    return std::fabs(x - y) <= 1e-6 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_object()) {
    const json::object &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    return std::all_of(x.begin(), x.end(), [&y](const json::key_value_pair& field) {
      const json::value* other = y.if_contains(field.key());
      return other != nullptr && same(field.value(), *other);
    });
  }
  if (a.is_array()) {
    const json::array &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same(x[i], y[i])) return false;
    return true;
  }
  return a == b;
}

// decode ∘ encode is the identity on what decodes (up to the rounding of fractions).
template <typename Message, typename Decode, typename Normalize>
void check(std::string_view text, Decode decode, Normalize normalize) {
  Result<Message> message = decode(text);
  fuzz::require_explained(message);
  if (!message) {
    fuzz::require(message.error().code == ErrorCode::kCorrupt, "a bad message is kCorrupt");
    return;
  }
  const std::string encoded = bus::encode(*message);
  Result<Message> again = decode(encoded);
  fuzz::require(again.ok(), "an encoded message decodes");
  normalize(*message);
  normalize(*again);
  fuzz::require(same(json::parse(bus::encode(*again)), json::parse(bus::encode(*message))),
                "decode(encode(m)) is m");
}

void as_is(auto&) {}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = fuzz::text_of(data + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      check<bus::WorkOrder>(text, bus::decode_work_order,
                            [](bus::WorkOrder& order) { order.request.deadline.reset(); });
      break;
    case 1: check<bus::StreamEvent>(text, bus::decode_stream_event, as_is<bus::StreamEvent>); break;
    case 2:
      check<bus::ProgressQuery>(text, bus::decode_progress_query, as_is<bus::ProgressQuery>);
      break;
    case 3:
      check<bus::ProgressReply>(text, bus::decode_progress_reply, as_is<bus::ProgressReply>);
      break;
    case 4: check<bus::CancelOrder>(text, bus::decode_cancel_order, as_is<bus::CancelOrder>); break;
    case 5: check<bus::EngineLoad>(text, bus::decode_engine_load, as_is<bus::EngineLoad>); break;
  }
  return 0;
}
