// A stored message's metadata as a small JSON object, written and read only here (see
// message_meta.h); anything unreadable reads back as no metadata.
#include "desk/message_meta.h"

#include <boost/json.hpp>

#include "core/utf8.h"
#include "store/session_types.h"

namespace supportd::desk {
namespace json = boost::json;
namespace {

std::string string_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::string encode_message_meta(const MessageMeta& meta) {
  // Text from a knowledge base's files is made valid UTF-8 first: the store refuses a message
  // whose metadata is not, and the message must not be lost for its metadata.
  json::object o;
  if (!meta.source.empty()) o["source"] = sanitize_utf8(meta.source);
  if (!meta.agent.empty()) o["agent"] = sanitize_utf8(meta.agent);
  json::array citations;
  for (const Citation& c : meta.citations) {
    citations.push_back(json::object{{"id", sanitize_utf8(c.id)},
                                     {"title", sanitize_utf8(c.title)},
                                     {"snippet", sanitize_utf8(c.snippet)}});
  }
  for (;;) {
    if (!citations.empty()) o["citations"] = citations;
    if (o.empty()) return {};
    std::string encoded = json::serialize(o);
    if (encoded.size() <= store::kMaxMetaBytes) return encoded;
    if (citations.empty()) return {};  // cannot happen with names of at most 64 characters
    citations.pop_back();
    o.erase("citations");
  }
}

MessageMeta decode_message_meta(std::string_view text) {
  MessageMeta meta;
  if (text.empty()) return meta;
  boost::system::error_code error;
  const json::value value = json::parse(text, error);
  if (error || !value.is_object()) return meta;
  const json::object& o = value.as_object();
  meta.source = string_at(o, "source");
  meta.agent = string_at(o, "agent");
  if (const json::value* citations = o.if_contains("citations");
      citations != nullptr && citations->is_array()) {
    for (const json::value& c : citations->as_array()) {
      if (!c.is_object()) continue;
      Citation citation{string_at(c.as_object(), "id"), string_at(c.as_object(), "title"),
                        string_at(c.as_object(), "snippet")};
      if (citation.id.empty() && citation.title.empty()) continue;
      meta.citations.push_back(std::move(citation));
    }
  }
  return meta;
}

}  // namespace supportd::desk
