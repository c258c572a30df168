// Hyperscan behind a small boundary: many patterns compiled once into a database, scanned
// together in one pass, in block mode (a whole text) or stream mode (text arriving in
// pieces, matches spanning pieces included). hs.h stays inside pattern_database.cpp.
// Thread-safe: a database is immutable after compile(); scans lease scratch space from a pool
// inside it. A PatternStream is not thread-safe (one per stream).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

struct hs_database;
struct hs_scratch;
struct hs_stream;

namespace supportd::filter {

struct PatternSpec {
  std::string label;  // names the pattern in errors ("file:line")
  std::string text;   // a literal (matched byte for byte) or a regular expression
  bool literal = true;
};

// What a regular expression can match, from Hyperscan's analysis.
struct PatternWidth {
  std::size_t min = 0;
  std::size_t max = 0;  // kUnbounded when repetition is unbounded
  static constexpr std::size_t kUnbounded = static_cast<std::size_t>(-1);
};

// One match: pattern index (in the compiled list) and byte offsets. For regular expressions
// `begin` is the leftmost start of a match ending at `end`.
struct PatternMatch {
  unsigned pattern = 0;
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Checks one regular expression (UTF-8, Unicode classes, caseless) on its own.
// Fails with kInvalidArgument "label: invalid regex: reason".
Result<PatternWidth> inspect_regex(const PatternSpec& spec);

class PatternDatabase {
 public:
  enum class Mode { kBlock, kStream };

  // Compiles `patterns` (at least one). Fails with kInvalidArgument naming the label of the
  // pattern Hyperscan rejected.
  static Result<std::unique_ptr<PatternDatabase>> compile(const std::vector<PatternSpec>& patterns,
                                                          Mode mode);
  ~PatternDatabase();
  PatternDatabase(const PatternDatabase&) = delete;
  PatternDatabase& operator=(const PatternDatabase&) = delete;

  // Block mode: appends every match in `text` to `matches` (in order of `end`).
  // REQUIRES: text.size() < 4 GiB (HTTP body limits keep messages far below).
  void scan(std::string_view text, std::vector<PatternMatch>& matches) const;

  Mode mode() const { return mode_; }

 private:
  friend class PatternStream;
  class ScratchLease;
  PatternDatabase(hs_database* database, hs_scratch* prototype, Mode mode,
                  std::vector<std::size_t> literal_sizes);
  hs_scratch* acquire_scratch() const;
  void release_scratch(hs_scratch* scratch) const;

  // Constant after construction.
  hs_database* database_;
  hs_scratch* prototype_;
  Mode mode_;
  std::vector<std::size_t> literal_sizes_;  // per pattern; 0 for regular expressions

  // Scratch spaces not in use by a scan.
  mutable std::mutex mutex_;
  mutable std::vector<hs_scratch*> free_scratch_;
};

// A stream-mode scan. Offsets count every byte scanned since the stream opened.
class PatternStream {
 public:
  // REQUIRES: database.mode() == kStream; the database outlives the stream.
  explicit PatternStream(const PatternDatabase& database);
  ~PatternStream();
  PatternStream(const PatternStream&) = delete;
  PatternStream& operator=(const PatternStream&) = delete;

  // Scans the next bytes; appends matches that end in them.
  void scan(std::string_view text, std::vector<PatternMatch>& matches);
  // Ends the stream; appends matches that needed the end of the data ('$' anchors).
  void close(std::vector<PatternMatch>& matches);

 private:
  const PatternDatabase& database_;
  hs_stream* stream_ = nullptr;
};

}  // namespace supportd::filter
