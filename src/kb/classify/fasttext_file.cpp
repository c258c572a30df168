// The fastText file check (fasttext_file.h): walks the header, arguments, dictionary and both
// matrices as fastText 0.9 writes them, every size against the file's, before fastText reads it.
#include "kb/classify/fasttext_file.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

namespace supportd::kb {
namespace {

constexpr std::int32_t kMagic = 793712314;  // fastText's FASTTEXT_FILEFORMAT_MAGIC_INT32
constexpr std::int32_t kVersion = 12;       // FASTTEXT_VERSION of 0.9 (11 is read too)
constexpr std::int32_t kModelSupervised = 3;
constexpr std::int32_t kLossSoftmax = 3;
constexpr std::int32_t kMaxDimensions = 65536;

// The arguments as fastText 0.9 saves them: 12 int32 and a double.
struct Arguments {
  std::int32_t dim, ws, epoch, min_count, neg, word_ngrams, loss, model, bucket, minn, maxn,
      lr_update_rate;
  double t;
};
static_assert(sizeof(Arguments) == 56);

class Reader {
 public:
  Reader(const std::string& path, std::uintmax_t size)
      : path_(path), in_(path, std::ios::binary), size_(size) {}
  bool open() const { return static_cast<bool>(in_); }

  template <typename T>
  bool read(T& value) {
    in_.read(reinterpret_cast<char*>(&value), sizeof value);
    return static_cast<bool>(in_);
  }
  // A NUL-terminated word; false when the file ends first.
  bool word(std::string& text) {
    std::getline(in_, text, '\0');
    return static_cast<bool>(in_) && !in_.eof();
  }
  std::uintmax_t position() { return static_cast<std::uintmax_t>(in_.tellg()); }
  std::uintmax_t remaining() { return size_ - position(); }
  // Reads rows x columns floats; false when one is not finite or the file ends first.
  Status matrix(const char* name, std::int64_t rows, std::int64_t columns, std::int64_t want_rows,
                std::int32_t want_columns) {
    if (rows != want_rows || columns != want_columns) {
      return corrupt(fmt::format("the {} matrix is {} x {}, the header implies {} x {}", name, rows,
                                 columns, want_rows, want_columns));
    }
    const auto count = static_cast<std::uintmax_t>(rows) * static_cast<std::uintmax_t>(columns);
    if (count > remaining() / sizeof(float)) {
      return corrupt(fmt::format("truncated: the {} matrix needs {} bytes, {} remain", name,
                                 count * sizeof(float), remaining()));
    }
    std::vector<float> chunk(65536);
    for (std::uintmax_t done = 0; done < count;) {
      const auto n = static_cast<std::size_t>(std::min<std::uintmax_t>(chunk.size(), count - done));
      in_.read(reinterpret_cast<char*>(chunk.data()),
               static_cast<std::streamsize>(n * sizeof(float)));
      if (!in_) return corrupt(fmt::format("truncated in the {} matrix", name));
      for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(chunk[i]))
          return corrupt(fmt::format("a weight of the {} matrix is not finite", name));
      }
      done += n;
    }
    return {};
  }
  Status corrupt(const std::string& why) const {
    return Error::make(ErrorCode::kCorrupt, path_ + ": not a fastText model of supportd (" + why +
                                                "; re-import the knowledge base)");
  }

 private:
  const std::string& path_;
  std::ifstream in_;
  std::uintmax_t size_;
};

}  // namespace

Status check_fasttext_file(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error::make(ErrorCode::kIo, path + ": cannot read (" + ec.message() + ")");
  Reader in(path, size);
  if (!in.open()) return Error::make(ErrorCode::kIo, path + ": cannot open");
  std::int32_t magic = 0, version = 0;
  Arguments a{};
  if (!in.read(magic) || !in.read(version) || !in.read(a)) return in.corrupt("truncated header");
  if (magic != kMagic) return in.corrupt("wrong magic number");
  if (version != kVersion && version != 11)
    return in.corrupt(fmt::format("format version {}", version));
  if (a.model != kModelSupervised) return in.corrupt("not a supervised model");
  if (a.loss != kLossSoftmax) return in.corrupt(fmt::format("loss {}, not softmax", a.loss));
  if (a.dim < 1 || a.dim > kMaxDimensions) return in.corrupt(fmt::format("{} dimensions", a.dim));
  if (a.word_ngrams < 1 || a.bucket < 0 || a.minn < 0 || a.maxn < 0 ||
      ((a.word_ngrams > 1 || a.maxn > 0) && a.bucket == 0)) {
    return in.corrupt(fmt::format("word n-grams {}, char n-grams {}-{}, {} buckets", a.word_ngrams,
                                  a.minn, a.maxn, a.bucket));
  }

  std::int32_t entries = 0, words = 0, labels = 0;
  std::int64_t tokens = 0, pruned = 0;
  if (!in.read(entries) || !in.read(words) || !in.read(labels) || !in.read(tokens) ||
      !in.read(pruned)) {
    return in.corrupt("truncated dictionary header");
  }
  if (words < 0 || labels < 1 || static_cast<std::int64_t>(words) + labels != entries ||
      tokens < 0 || pruned != -1) {
    return in.corrupt(fmt::format("dictionary of {} entries, {} words, {} labels, pruned {}",
                                  entries, words, labels, pruned));
  }
  std::string text;
  for (std::int32_t i = 0; i < entries; ++i) {
    std::int64_t count = 0;
    std::int8_t type = 0;
    if (!in.word(text) || !in.read(count) || !in.read(type))
      return in.corrupt(fmt::format("truncated in dictionary entry {} of {}", i + 1, entries));
    if (type != (i < words ? 0 : 1) || count < 0)
      return in.corrupt(fmt::format("dictionary entry {} is malformed", i + 1));
  }
  std::uint8_t quantized = 0;
  std::int64_t rows = 0, columns = 0;
  if (!in.read(quantized) || quantized != 0 || !in.read(rows) || !in.read(columns))
    return in.corrupt("the input matrix is missing or quantized");
  if (Status s = in.matrix("input", rows, columns, std::int64_t{words} + a.bucket, a.dim); !s)
    return s;
  if (!in.read(quantized) || quantized != 0 || !in.read(rows) || !in.read(columns))
    return in.corrupt("the output matrix is missing or quantized");
  if (Status s = in.matrix("output", rows, columns, labels, a.dim); !s) return s;
  if (in.remaining() != 0)
    return in.corrupt(fmt::format("{} bytes after the model", in.remaining()));
  return {};
}

}  // namespace supportd::kb
