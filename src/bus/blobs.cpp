// Large messages as chunks on SUPPORTD_BLOBS and the reference that travels instead.
#include "bus/blobs.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "bus/subjects.h"
#include "bus/wire.h"

namespace supportd::bus {
namespace {

namespace json = boost::json;

// Room left in a message for the headers JetStream and libnats add (message id, status).
constexpr std::int64_t kHeaderRoom = 1024;
// A reference message begins so; json::serialize keeps the insertion order.
constexpr std::string_view kReferencePrefix = R"({"v":1,"kind":"blob")";

struct Reference {
  std::string stream;
  std::vector<std::uint64_t> sequences;
  std::uint64_t bytes = 0;
};

Result<Reference> parse_reference(std::string_view wrapped) {
  boost::system::error_code ec;
  json::value value = json::parse(wrapped, ec);
  const json::object* object = value.if_object();
  Reference reference;
  const json::value* stream = object != nullptr ? object->if_contains("stream") : nullptr;
  const json::value* sequences = object != nullptr ? object->if_contains("chunks") : nullptr;
  const json::value* bytes = object != nullptr ? object->if_contains("bytes") : nullptr;
  if (ec || stream == nullptr || !stream->is_string() || sequences == nullptr ||
      !sequences->is_array() || bytes == nullptr || !bytes->is_int64()) {
    return Error::make(ErrorCode::kCorrupt, "a large-message reference on the bus is malformed");
  }
  reference.stream = std::string(stream->get_string());
  reference.bytes = static_cast<std::uint64_t>(bytes->get_int64());
  for (const json::value& s : sequences->get_array()) {
    if (!s.is_int64() && !s.is_uint64())
      return Error::make(ErrorCode::kCorrupt, "a large-message reference names a bad chunk");
    reference.sequences.push_back(s.is_int64() ? static_cast<std::uint64_t>(s.get_int64())
                                               : s.get_uint64());
  }
  return reference;
}

}  // namespace

bool Blobs::is_reference(std::string_view wrapped) {
  return wrapped.starts_with(kReferencePrefix);
}

std::int64_t Blobs::inline_limit() const {
  return std::max<std::int64_t>(jetstream_.connection().max_payload() - kHeaderRoom, 1024);
}

Result<std::string> Blobs::wrap(std::string_view owner, std::string data) {
  const auto limit = static_cast<std::size_t>(inline_limit());
  if (data.size() <= limit) return data;
  const std::string subject = subjects::blob(owner);
  json::array chunks;
  for (std::size_t offset = 0; offset < data.size(); offset += limit) {
    const std::string_view chunk = std::string_view(data).substr(offset, limit);
    auto stored = jetstream_.store(subject, chunk);
    if (!stored) {
      for (const json::value& s : chunks)
        (void)jetstream_.remove(std::string(subjects::kBlobStream), s.get_uint64());
      Error error = stored.error();
      error.message =
          fmt::format("storing a {}-byte message in chunks: {}", data.size(), error.message);
      return error;
    }
    chunks.push_back(stored->sequence);
  }
  spdlog::debug("bus: {} bytes for {} travel as {} chunks of at most {}", data.size(), owner,
                chunks.size(), limit);
  json::object reference{{"v", kWireVersion},
                         {"kind", "blob"},
                         {"stream", subjects::kBlobStream},
                         {"chunks", std::move(chunks)},
                         {"bytes", static_cast<std::int64_t>(data.size())}};
  return json::serialize(reference);
}

Result<std::string> Blobs::unwrap(std::string wrapped) {
  if (!is_reference(wrapped)) return wrapped;
  auto reference = parse_reference(wrapped);
  if (!reference) return reference.error();
  std::string data;
  data.reserve(reference->bytes);
  for (std::uint64_t sequence : reference->sequences) {
    auto chunk = jetstream_.read(reference->stream, sequence);
    if (!chunk) return chunk.error();
    data += *chunk;
  }
  if (data.size() != reference->bytes) {
    return Error::make(ErrorCode::kCorrupt,
                       fmt::format("a large message read back as {} bytes, expected {}",
                                   data.size(), reference->bytes));
  }
  return data;
}

void Blobs::release(std::string_view wrapped) {
  if (!is_reference(wrapped)) return;
  auto reference = parse_reference(wrapped);
  if (!reference) return;
  for (std::uint64_t sequence : reference->sequences) {
    if (Status s = jetstream_.remove(reference->stream, sequence); !s)
      spdlog::debug("bus: chunk {} not deleted ({}); it expires", sequence, s.error().message);
  }
}

}  // namespace supportd::bus
