// Hyperscan behind PatternDatabase and PatternStream (see pattern_database.h): compiling
// patterns, leasing scratch space, block and stream scans.
#include "filter/pattern_database.h"

#include <climits>
#include <cstdlib>

#include <fmt/format.h>
#include <hs/hs.h>

namespace supportd::filter {
namespace {

// No HS_FLAG_CASELESS: the text is case-folded and so are the patterns (fold_pattern_case);
// caseless Unicode matching would count every letter as up to 3 bytes (K matches U+212A KELVIN
// SIGN) and triple the hold-back of streamed answers.
constexpr unsigned kRegexFlags = HS_FLAG_UTF8 | HS_FLAG_UCP | HS_FLAG_SOM_LEFTMOST;

// A literal as a Hyperscan expression: every byte escaped, so nothing in it is syntax.
std::string escape_literal(std::string_view literal) {
  std::string out;
  out.reserve(literal.size() * 4);
  for (unsigned char c : literal)
    fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
  return out;
}

struct ScanContext {
  std::vector<PatternMatch>* matches;
  const std::vector<std::size_t>* literal_sizes;
};

int on_match(unsigned int id, unsigned long long from, unsigned long long to, unsigned int,
             void* context) {
  auto* scan = static_cast<ScanContext*>(context);
  const std::size_t literal_size = (*scan->literal_sizes)[id];
  const auto end = static_cast<std::size_t>(to);
  const std::size_t begin = literal_size > 0 ? end - literal_size : static_cast<std::size_t>(from);
  scan->matches->push_back({id, begin, end});
  return 0;  // keep scanning
}

}  // namespace

class PatternDatabase::ScratchLease {
 public:
  explicit ScratchLease(const PatternDatabase& database)
      : database_(database), scratch_(database.acquire_scratch()) {}
  ~ScratchLease() { database_.release_scratch(scratch_); }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  hs_scratch* get() const { return scratch_; }

 private:
  const PatternDatabase& database_;
  hs_scratch* scratch_;
};

Result<PatternWidth> inspect_regex(const PatternSpec& spec) {
  hs_expr_info_t* info = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_expression_info(spec.text.c_str(), kRegexFlags, &info, &error) != HS_SUCCESS) {
    std::string message = fmt::format("{}: invalid regex: {}", spec.label,
                                      error != nullptr ? error->message : "rejected by Hyperscan");
    hs_free_compile_error(error);
    return Error::invalid(std::move(message), spec.label);
  }
  PatternWidth width;
  width.min = info->min_width;
  width.max = info->max_width == UINT_MAX ? PatternWidth::kUnbounded : info->max_width;
  std::free(info);  // allocated by Hyperscan's default allocator (malloc)
  return width;
}

Result<std::unique_ptr<PatternDatabase>> PatternDatabase::compile(
    const std::vector<PatternSpec>& patterns, Mode mode) {
  if (patterns.empty()) return Error::make(ErrorCode::kInternal, "no patterns to compile");
  std::vector<std::string> expressions;
  std::vector<const char*> expression_pointers;
  std::vector<unsigned> flags;
  std::vector<unsigned> ids;
  std::vector<std::size_t> literal_sizes;
  bool needs_start_of_match = false;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const PatternSpec& pattern = patterns[i];
    expressions.push_back(pattern.literal ? escape_literal(pattern.text) : pattern.text);
    flags.push_back(pattern.literal ? 0U : kRegexFlags);
    ids.push_back(static_cast<unsigned>(i));
    literal_sizes.push_back(pattern.literal ? pattern.text.size() : 0);
    needs_start_of_match = needs_start_of_match || !pattern.literal;
  }
  for (const std::string& expression : expressions)
    expression_pointers.push_back(expression.c_str());

  unsigned hs_mode = mode == Mode::kBlock ? HS_MODE_BLOCK : HS_MODE_STREAM;
  if (mode == Mode::kStream && needs_start_of_match) hs_mode |= HS_MODE_SOM_HORIZON_LARGE;
  hs_database_t* database = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_multi(expression_pointers.data(), flags.data(), ids.data(),
                       static_cast<unsigned>(patterns.size()), hs_mode, nullptr, &database,
                       &error) != HS_SUCCESS) {
    const int index = error != nullptr ? error->expression : -1;
    std::string where = index >= 0 && static_cast<std::size_t>(index) < patterns.size()
                            ? patterns[static_cast<std::size_t>(index)].label
                            : std::string("rule set");
    std::string message = fmt::format("{}: Hyperscan cannot compile this pattern: {}", where,
                                      error != nullptr ? error->message : "unknown error");
    hs_free_compile_error(error);
    return Error::invalid(std::move(message), where);
  }
  hs_scratch_t* prototype = nullptr;
  if (hs_alloc_scratch(database, &prototype) != HS_SUCCESS) {
    hs_free_database(database);
    return Error::make(ErrorCode::kInternal, "Hyperscan could not allocate scratch space");
  }
  return std::unique_ptr<PatternDatabase>(
      new PatternDatabase(database, prototype, mode, std::move(literal_sizes)));
}

PatternDatabase::PatternDatabase(hs_database* database, hs_scratch* prototype, Mode mode,
                                 std::vector<std::size_t> literal_sizes)
    : database_(database),
      prototype_(prototype),
      mode_(mode),
      literal_sizes_(std::move(literal_sizes)) {}

PatternDatabase::~PatternDatabase() {
  for (hs_scratch_t* scratch : free_scratch_)
    hs_free_scratch(scratch);
  hs_free_scratch(prototype_);
  hs_free_database(database_);
}

hs_scratch* PatternDatabase::acquire_scratch() const {
  {
    std::lock_guard lock(mutex_);
    if (!free_scratch_.empty()) {
      hs_scratch_t* scratch = free_scratch_.back();
      free_scratch_.pop_back();
      return scratch;
    }
  }
  hs_scratch_t* scratch = nullptr;
  if (hs_clone_scratch(prototype_, &scratch) != HS_SUCCESS) std::abort();  // out of memory
  return scratch;
}

void PatternDatabase::release_scratch(hs_scratch* scratch) const {
  std::lock_guard lock(mutex_);
  free_scratch_.push_back(scratch);
}

void PatternDatabase::scan(std::string_view text, std::vector<PatternMatch>& matches) const {
  ScratchLease scratch(*this);
  ScanContext context{&matches, &literal_sizes_};
  // Hyperscan takes 32-bit lengths (see the REQUIRES in the header).
  const auto size = static_cast<unsigned>(std::min<std::size_t>(text.size(), UINT_MAX));
  hs_scan(database_, text.data(), size, 0, scratch.get(), on_match, &context);
}

PatternStream::PatternStream(const PatternDatabase& database) : database_(database) {
  if (hs_open_stream(database.database_, 0, &stream_) != HS_SUCCESS) std::abort();  // no memory
}

PatternStream::~PatternStream() {
  if (stream_ != nullptr) hs_close_stream(stream_, nullptr, nullptr, nullptr);
}

void PatternStream::scan(std::string_view text, std::vector<PatternMatch>& matches) {
  if (stream_ == nullptr || text.empty()) return;
  PatternDatabase::ScratchLease scratch(database_);
  ScanContext context{&matches, &database_.literal_sizes_};
  hs_scan_stream(stream_, text.data(), static_cast<unsigned>(text.size()), 0, scratch.get(),
                 on_match, &context);
}

void PatternStream::close(std::vector<PatternMatch>& matches) {
  if (stream_ == nullptr) return;
  PatternDatabase::ScratchLease scratch(database_);
  ScanContext context{&matches, &database_.literal_sizes_};
  hs_close_stream(stream_, scratch.get(), on_match, &context);
  stream_ = nullptr;
}

}  // namespace supportd::filter
