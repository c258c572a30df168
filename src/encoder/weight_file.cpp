// WeightFile: mapping the file read-only, checking its header, checksum and table of tensors
// before anything points into it, and views of its pieces and tensors by name.
#include "encoder/weight_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

namespace supportd::encoder {
namespace {

static_assert(std::endian::native == std::endian::little, "the weight file is little-endian");

constexpr char kMagic[8] = {'S', 'U', 'P', 'D', 'E', 'N', 'C', '\0'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::size_t kHeaderBytes = 128;
constexpr std::size_t kEntryBytes = 96;
constexpr std::size_t kAlignment = 64;
constexpr std::uint32_t kMaxRank = 4;
constexpr const char* kHint = " (run scripts/fetch-encoder.sh to convert it again)";

template <typename T>
T read(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

// The NUL-padded string in [at, at + capacity); empty view when no NUL ends it.
std::string_view padded_string(const std::byte* at, std::size_t capacity) {
  const char* text = reinterpret_cast<const char*>(at);
  const void* end = std::memchr(text, '\0', capacity);
  return end ? std::string_view(text, static_cast<const char*>(end) - text) : std::string_view();
}

std::uint32_t checksum(const std::byte* begin, std::size_t bytes) {
  std::uint32_t hash = 0x811c9dc5u;
  for (std::size_t i = 0; i + 4 <= bytes; i += 4)
    hash = (hash ^ read<std::uint32_t>(begin + i)) * 0x01000193u;
  return hash;
}

}  // namespace

Result<std::unique_ptr<WeightFile>> WeightFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT)
      return Error::make(ErrorCode::kNotFound,
                         "encoder weight file not found: " + path +
                             " (scripts/setup.sh converts it; or set SUPPORTD_ENCODER)");
    return Error::make(ErrorCode::kIo,
                       "cannot open encoder weight file " + path + ": " + std::strerror(error));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error::make(ErrorCode::kIo, "encoder weight file " + path + " is not a regular file");
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size < kHeaderBytes) {
    ::close(fd);
    return Error::make(
        ErrorCode::kCorrupt,
        fmt::format("encoder weight file {} is truncated ({} bytes){}", path, size, kHint));
  }
  void* base = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int error = errno;
  ::close(fd);
  if (base == MAP_FAILED)
    return Error::make(ErrorCode::kIo,
                       "cannot map encoder weight file " + path + ": " + std::strerror(error));
  std::unique_ptr<WeightFile> file(new WeightFile(path, static_cast<const std::byte*>(base), size));
  if (Status status = file->parse(); !status) return status.error();
  return file;
}

WeightFile::WeightFile(std::string path, const std::byte* base, std::size_t size)
    : path_(std::move(path)), base_(base), size_(size) {}

WeightFile::~WeightFile() {
  ::munmap(const_cast<std::byte*>(base_), size_);
}

Error WeightFile::corrupt(const std::string& what) const {
  return Error::make(ErrorCode::kCorrupt,
                     "encoder weight file " + path_ + " is corrupt: " + what + kHint);
}

Status WeightFile::parse() {
  if (std::memcmp(base_, kMagic, sizeof kMagic) != 0)
    return corrupt("not a supportd encoder weight file (bad magic)");
  const auto version = read<std::uint32_t>(base_ + 8);
  if (version != kFormatVersion)
    return corrupt(fmt::format("format version {}, expected {}", version, kFormatVersion));
  const auto tensor_count = read<std::uint32_t>(base_ + 12);
  const auto piece_count = read<std::uint32_t>(base_ + 16);
  reserved_pieces_ = read<std::uint32_t>(base_ + 20);
  const auto vocabulary_offset = read<std::uint64_t>(base_ + 24);
  const auto vocabulary_bytes = read<std::uint64_t>(base_ + 32);
  const auto file_bytes = read<std::uint64_t>(base_ + 40);
  if (file_bytes != size_)
    return corrupt(
        fmt::format("it is {} bytes, its header says {} (truncated?)", size_, file_bytes));
  if (checksum(base_ + kHeaderBytes, size_ - kHeaderBytes) != read<std::uint32_t>(base_ + 48))
    return corrupt("checksum mismatch");
  source_ = std::string(padded_string(base_ + 56, 64));

  // Everything below is covered by the checksum, but still checked, so a file written by a
  // wrong converter fails with a message instead of reading out of bounds.
  if (kHeaderBytes + std::uint64_t{tensor_count} * kEntryBytes > size_)
    return corrupt("the tensor table runs past the end");
  for (std::uint32_t i = 0; i < tensor_count; ++i) {
    const std::byte* entry = base_ + kHeaderBytes + i * kEntryBytes;
    const std::string_view name = padded_string(entry, 64);
    const auto offset = read<std::uint64_t>(entry + 64);
    const auto rank = read<std::uint32_t>(entry + 72);
    if (name.empty()) return corrupt(fmt::format("tensor {} has no name", i));
    if (rank == 0 || rank > kMaxRank) return corrupt(fmt::format("{} has rank {}", name, rank));
    std::vector<std::int64_t> shape;
    std::uint64_t count = 1;
    for (std::uint32_t d = 0; d < rank; ++d) {
      shape.push_back(read<std::uint32_t>(entry + 76 + 4 * d));
      count *= static_cast<std::uint64_t>(shape.back());
    }
    if (offset % kAlignment != 0 || offset > size_ || count > (size_ - offset) / sizeof(float))
      return corrupt(std::string(name) + " lies outside the file");
    const auto* data = reinterpret_cast<const float*>(base_ + offset);
    tensors_.emplace(std::string(name), TensorView{{data, count}, std::move(shape)});
  }

  const std::uint64_t table_bytes =
      std::uint64_t{piece_count} * 8 + (std::uint64_t{piece_count} + 1) * 4;
  if (vocabulary_offset % 8 != 0 || vocabulary_offset > size_ ||
      vocabulary_bytes > size_ - vocabulary_offset || table_bytes > vocabulary_bytes ||
      piece_count == 0 || reserved_pieces_ >= piece_count)
    return corrupt("the vocabulary lies outside the file");
  const std::byte* vocabulary = base_ + vocabulary_offset;
  scores_ = {reinterpret_cast<const double*>(vocabulary), piece_count};
  piece_offsets_ = {
      reinterpret_cast<const std::uint32_t*>(vocabulary + std::size_t{piece_count} * 8),
      std::size_t{piece_count} + 1};
  piece_bytes_ = {reinterpret_cast<const char*>(vocabulary + table_bytes),
                  static_cast<std::size_t>(vocabulary_bytes - table_bytes)};
  for (std::size_t i = 0; i < piece_count; ++i)
    if (piece_offsets_[i] > piece_offsets_[i + 1]) return corrupt("piece offsets go backwards");
  if (piece_offsets_.front() != 0 || piece_offsets_.back() != piece_bytes_.size())
    return corrupt("the piece table does not cover the piece bytes");
  return {};
}

std::string_view WeightFile::piece(std::size_t id) const {
  return piece_bytes_.substr(piece_offsets_[id], piece_offsets_[id + 1] - piece_offsets_[id]);
}

Result<TensorView> WeightFile::tensor(const std::string& name,
                                      std::vector<std::int64_t> shape) const {
  const auto found = tensors_.find(name);
  if (found == tensors_.end()) return corrupt("no tensor " + name);
  if (found->second.shape != shape) {
    return corrupt(fmt::format("{} is {}, expected {}", name, fmt::join(found->second.shape, "x"),
                               fmt::join(shape, "x")));
  }
  return found->second;
}

}  // namespace supportd::encoder
