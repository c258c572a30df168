// The answer access log (answer_access_log.h): counts buffered per key, appended as "key count"
// lines, read back and ranked for hottest(), and compacted to the most used keys when too large.
#include "store/cache/answer_access_log.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <unordered_map>

namespace supportd::store {
namespace {

// Records are counted in memory and written as "key count" lines every this many records: a
// hot key costs one line per flush, not one per use, so the file (and its compaction, which
// runs on the recording thread) grows with the distinct keys used rather than with the traffic.
constexpr std::size_t kBufferedRecords = 4096;

using Counts = std::unordered_map<std::string, std::int64_t>;

// Adds the file's records to `counts`: "key" lines count once, "key count" lines count times.
// Lines that are neither are skipped (a torn last line after a crash).
void read_counts(const std::filesystem::path& path, Counts& counts) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) {
      if (!line.empty()) ++counts[line];
      continue;
    }
    std::int64_t count = 0;
    const char* end = line.data() + line.size();
    const auto [ptr, ec] = std::from_chars(line.data() + space + 1, end, count);
    if (ec == std::errc() && ptr == end && count > 0 && space > 0)
      counts[line.substr(0, space)] += count;
  }
}

std::vector<std::pair<std::string, std::int64_t>> ranked(Counts counts) {
  std::vector<std::pair<std::string, std::int64_t>> out(std::make_move_iterator(counts.begin()),
                                                        std::make_move_iterator(counts.end()));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

}  // namespace

Result<std::unique_ptr<AnswerAccessLog>> AnswerAccessLog::open(const Options& options) {
  std::error_code ec;
  if (options.path.has_parent_path())
    std::filesystem::create_directories(options.path.parent_path(), ec);
  if (ec) {
    return Error::make(ErrorCode::kIo, "cannot create " + options.path.parent_path().string() +
                                           ": " + ec.message());
  }
  return std::unique_ptr<AnswerAccessLog>(new AnswerAccessLog(options));
}

AnswerAccessLog::~AnswerAccessLog() {
  std::lock_guard lock(mutex_);
  (void)flush_locked();
}

void AnswerAccessLog::record(std::string_view key) {
  if (key.empty() || key.find_first_of(" \t\r\n") != std::string_view::npos) return;
  std::lock_guard lock(mutex_);
  ++buffer_[std::string(key)];
  if (++buffered_ >= kBufferedRecords) (void)flush_locked();
}

Status AnswerAccessLog::flush() {
  std::lock_guard lock(mutex_);
  return flush_locked();
}

Status AnswerAccessLog::flush_locked() {
  if (!buffer_.empty()) {
    std::ofstream out(options_.path, std::ios::app);
    for (const auto& [key, count] : buffer_)
      out << key << ' ' << count << '\n';
    out.flush();
    if (!out) return Error::make(ErrorCode::kIo, "cannot append to " + options_.path.string());
    buffer_.clear();
    buffered_ = 0;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(options_.path, ec);
  if (!ec && size > options_.max_bytes) return compact_locked();
  return {};
}

Status AnswerAccessLog::compact_locked() {
  Counts counts;
  read_counts(options_.path, counts);
  auto top = ranked(std::move(counts));
  if (top.size() > options_.keep) top.resize(options_.keep);
  const std::filesystem::path partial = options_.path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::trunc);
    for (const auto& [key, count] : top)
      out << key << ' ' << count << '\n';
    out.flush();
    if (!out) return Error::make(ErrorCode::kIo, "cannot write " + partial.string());
  }
  std::error_code ec;
  std::filesystem::rename(partial, options_.path, ec);
  if (ec) return Error::make(ErrorCode::kIo, "cannot replace " + options_.path.string());
  return {};
}

Result<std::vector<std::string>> AnswerAccessLog::hottest(std::size_t n) {
  std::lock_guard lock(mutex_);
  Counts counts;
  read_counts(options_.path, counts);
  for (const auto& [key, count] : buffer_)
    counts[key] += count;
  auto top = ranked(std::move(counts));
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < top.size() && i < n; ++i)
    keys.push_back(std::move(top[i].first));
  return keys;
}

}  // namespace supportd::store
