// The answer cache's parts (answer_cache.h): question normalization, the SHA-256 key, the
// MessagePack form of a cached answer (a value that does not decode is a miss), the Redis L2 and
// prewarm.
#include "store/cache/answer_cache.h"

#include <msgpack.hpp>

#include "core/utf8.h"
#include "store/digest.h"

namespace supportd::store {
namespace {

constexpr int kFormat = 1;

std::string encode(const CachedAnswer& answer) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> packer(buffer);
  packer.pack_array(4);
  packer.pack(kFormat);
  packer.pack(answer.text);
  packer.pack(answer.citations);
  packer.pack(answer.created_ms);
  return std::string(buffer.data(), buffer.size());
}

std::optional<CachedAnswer> decode(std::string_view bytes) {
  try {
    std::size_t offset = 0;
    const msgpack::unpack_limit limit(10000, 0, 4 * 1024 * 1024, 0, 0, 3);
    msgpack::object_handle handle =
        msgpack::unpack(bytes.data(), bytes.size(), offset, nullptr, nullptr, limit);
    const msgpack::object& root = handle.get();
    if (offset != bytes.size() || root.type != msgpack::type::ARRAY || root.via.array.size != 4)
      return std::nullopt;
    const msgpack::object* f = root.via.array.ptr;
    if (f[0].as<int>() != kFormat) return std::nullopt;
    CachedAnswer answer;
    answer.text = f[1].as<std::string>();
    answer.citations = f[2].as<std::vector<std::string>>();
    answer.created_ms = f[3].as<std::int64_t>();
    if (!is_valid_utf8(answer.text)) return std::nullopt;
    return answer;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::string normalize_question(std::string_view question) {
  const std::string text = sanitize_utf8(question);
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (is_space(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  // Trailing ? ! . and their full-width forms (？ ！ 。).
  for (;;) {
    if (!out.empty() && (out.back() == '?' || out.back() == '!' || out.back() == '.')) {
      out.pop_back();
    } else if (out.size() >= 3 && (out.ends_with("\xEF\xBC\x9F") || out.ends_with("\xEF\xBC\x81") ||
                                   out.ends_with("\xE3\x80\x82"))) {
      out.resize(out.size() - 3);
    } else {
      break;
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
  }
  return out;
}

std::string answer_key(std::string_view question, std::string_view kb_version) {
  const std::string normalized = normalize_question(question);
  std::string material(kb_version);
  material += '\0';
  material += normalized;
  return "answer:" + sha256_hex(material);
}

RedisAnswerCache::RedisAnswerCache(RedisClient::Options redis, std::chrono::milliseconds ttl)
    : redis_(std::move(redis)), ttl_(ttl) {}

Result<std::optional<CachedAnswer>> RedisAnswerCache::get(const std::string& key) {
  Result<RedisReply> reply = redis_.command({"GET", key});
  if (!reply) return reply.error();
  std::optional<CachedAnswer> answer;
  if (reply->type == RedisReply::Type::kString) answer = decode(reply->string);
  (answer ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
  return answer;
}

Result<std::vector<std::optional<CachedAnswer>>> RedisAnswerCache::get_many(
    const std::vector<std::string>& keys) {
  std::vector<std::optional<CachedAnswer>> answers;
  if (keys.empty()) return answers;
  std::vector<std::string_view> args{"MGET"};
  for (const std::string& key : keys)
    args.push_back(key);
  Result<RedisReply> reply = redis_.command(args);
  if (!reply) return reply.error();
  if (reply->type != RedisReply::Type::kArray || reply->elements.size() != keys.size())
    return Error::make(ErrorCode::kCorrupt, "unexpected MGET reply from Redis");
  for (const RedisReply& element : reply->elements) {
    std::optional<CachedAnswer> answer;
    if (element.type == RedisReply::Type::kString) answer = decode(element.string);
    (answer ? hits_ : misses_).fetch_add(1, std::memory_order_relaxed);
    answers.push_back(std::move(answer));
  }
  return answers;
}

Status RedisAnswerCache::ping() {
  auto reply = redis_.command({"PING"});
  if (!reply) return reply.error();  // names the address and why
  return {};
}

Status RedisAnswerCache::put(const std::string& key, const CachedAnswer& answer,
                             std::chrono::milliseconds ttl) {
  if (!is_valid_utf8(answer.text)) return Error::invalid("the answer is not valid UTF-8", "text");
  const std::string value = encode(answer);
  const std::string expiry = std::to_string((ttl.count() > 0 ? ttl : ttl_).count());
  Result<RedisReply> reply = redis_.command({"SET", key, value, "PX", expiry});
  if (!reply) return reply.error();
  return {};
}

RedisAnswerCache::Stats RedisAnswerCache::stats() const {
  return {hits_.load(std::memory_order_relaxed), misses_.load(std::memory_order_relaxed),
          redis_.errors()};
}

Result<std::size_t> prewarm(AnswerLru& l1, RedisAnswerCache& l2,
                            const std::vector<std::string>& keys) {
  std::size_t loaded = 0;
  constexpr std::size_t kChunk = 256;
  for (std::size_t start = 0; start < keys.size(); start += kChunk) {
    const std::vector<std::string> chunk(
        keys.begin() + static_cast<std::ptrdiff_t>(start),
        keys.begin() + static_cast<std::ptrdiff_t>(std::min(keys.size(), start + kChunk)));
    Result<std::vector<std::optional<CachedAnswer>>> answers = l2.get_many(chunk);
    if (!answers) return answers.error();
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if ((*answers)[i]) {
        l1.put(chunk[i], std::move(*(*answers)[i]));
        ++loaded;
      }
    }
  }
  return loaded;
}

}  // namespace supportd::store
