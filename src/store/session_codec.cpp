// A SessionView to MessagePack and back (session_codec.h), every element's type checked on
// decode.
#include "store/session_codec.h"

#include <msgpack.hpp>

#include "core/utf8.h"

namespace supportd::store {
namespace {

constexpr int kFormat = 1;
constexpr std::uint32_t kFields = 12;

}  // namespace

std::string encode_session(const SessionView& view) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  const Conversation& c = view.conversation;
  packer.pack_array(kFields);
  packer.pack(kFormat);
  packer.pack(c.session);
  packer.pack(c.tenant);
  packer.pack(c.user);
  packer.pack(c.created_ms);
  packer.pack(c.last_seq);
  packer.pack(static_cast<int>(c.handoff));
  packer.pack(c.agent);
  packer.pack(c.handoff_ms);
  packer.pack(view.state_version);
  if (c.csat) {
    packer.pack(*c.csat);
  } else {
    packer.pack_nil();
  }
  packer.pack_array(static_cast<std::uint32_t>(view.recent.size()));
  for (const Message& m : view.recent) {
    packer.pack_array(m.meta.empty() ? 4 : 5);
    packer.pack(m.seq_id);
    packer.pack(static_cast<int>(m.role));
    packer.pack(m.text);
    packer.pack(m.created_ms);
    if (!m.meta.empty()) packer.pack(m.meta);
  }
  return std::string(buffer.data(), buffer.size());
}

Result<SessionView> decode_session(std::string_view bytes) {
  const auto corrupt = [](const std::string& why) {
    return Error::make(ErrorCode::kCorrupt, "cached session is not readable: " + why);
  };
  try {
    std::size_t offset = 0;
    // Bounds keep a hostile length prefix from allocating gigabytes.
    const msgpack::unpack_limit limit(/*array=*/100000, /*map=*/0, /*str=*/kMaxMessageBytes + 1024,
                                      /*bin=*/0, /*ext=*/0, /*depth=*/4);
    msgpack::object_handle handle =
        msgpack::unpack(bytes.data(), bytes.size(), offset, nullptr, nullptr, limit);
    if (offset != bytes.size()) return corrupt("trailing bytes");
    const msgpack::object& root = handle.get();
    if (root.type != msgpack::type::ARRAY || root.via.array.size != kFields)
      return corrupt("not a session array");
    const msgpack::object* f = root.via.array.ptr;
    if (f[0].as<int>() != kFormat) return corrupt("unknown format");
    SessionView view;
    Conversation& c = view.conversation;
    c.session = f[1].as<std::string>();
    c.tenant = f[2].as<std::string>();
    c.user = f[3].as<std::string>();
    c.created_ms = f[4].as<std::int64_t>();
    c.last_seq = f[5].as<std::int64_t>();
    const int handoff = f[6].as<int>();
    if (handoff < 0 || handoff > static_cast<int>(Handoff::kClosed)) return corrupt("handoff");
    c.handoff = static_cast<Handoff>(handoff);
    c.agent = f[7].as<std::string>();
    c.handoff_ms = f[8].as<std::int64_t>();
    view.state_version = f[9].as<std::int64_t>();
    if (!f[10].is_nil()) {
      const int csat = f[10].as<int>();
      if (csat < 1 || csat > 5) return corrupt("csat");
      c.csat = csat;
    }
    if (f[11].type != msgpack::type::ARRAY) return corrupt("messages");
    const msgpack::object_array& messages = f[11].via.array;
    view.recent.reserve(messages.size);
    for (std::uint32_t i = 0; i < messages.size; ++i) {
      const msgpack::object& m = messages.ptr[i];
      if (m.type != msgpack::type::ARRAY || (m.via.array.size != 4 && m.via.array.size != 5))
        return corrupt("message");
      Message message;
      message.seq_id = m.via.array.ptr[0].as<std::int64_t>();
      const int role = m.via.array.ptr[1].as<int>();
      if (role < 0 || role > static_cast<int>(Role::kSystem)) return corrupt("role");
      message.role = static_cast<Role>(role);
      message.text = m.via.array.ptr[2].as<std::string>();
      message.created_ms = m.via.array.ptr[3].as<std::int64_t>();
      if (m.via.array.size == 5) message.meta = m.via.array.ptr[4].as<std::string>();
      if (!is_valid_utf8(message.text)) return corrupt("message text");
      if (message.meta.size() > kMaxMetaBytes || !is_valid_utf8(message.meta))
        return corrupt("message meta");
      view.recent.push_back(std::move(message));
    }
    // The messages must be the contiguous tail ending at last_seq.
    for (std::size_t i = 0; i < view.recent.size(); ++i) {
      const std::int64_t expected = c.last_seq - static_cast<std::int64_t>(view.recent.size()) + 1 +
                                    static_cast<std::int64_t>(i);
      if (view.recent[i].seq_id != expected || expected < 1) return corrupt("message order");
    }
    if (c.last_seq < 0) return corrupt("last_seq");
    return view;
  } catch (const std::exception& e) {
    return corrupt(e.what());
  }
}

}  // namespace supportd::store
