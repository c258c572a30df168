// The Protocol Buffers wire format (see protobuf_writer.h).
#include "obs/trace/protobuf_writer.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace supportd::obs::trace {

void ProtobufWriter::grow(std::size_t bytes) {
  out_.resize(std::max({out_.size() * 2, size_ + bytes, std::size_t{256}}));
}

void ProtobufWriter::raw_varint(std::uint64_t value) {
  char* at = room(10);
  std::size_t size = 0;
  while (value >= 0x80) {
    at[size++] = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  at[size++] = static_cast<char>(value);
  size_ += size;
}

void ProtobufWriter::raw_little_endian(std::uint64_t value, int bytes) {
  char* at = room(8);
  for (int i = 0; i < bytes; ++i) {
    at[i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  size_ += static_cast<std::size_t>(bytes);
}

void ProtobufWriter::varint(int field, std::uint64_t value) {
  key(field, kVarint);
  raw_varint(value);
}

void ProtobufWriter::fixed64(int field, std::uint64_t value) {
  key(field, kFixed64);
  raw_little_endian(value, 8);
}

void ProtobufWriter::fixed32(int field, std::uint32_t value) {
  key(field, kFixed32);
  raw_little_endian(value, 4);
}

void ProtobufWriter::float64(int field, double value) {
  key(field, kFixed64);
  raw_little_endian(std::bit_cast<std::uint64_t>(value), 8);
}

void ProtobufWriter::bytes(int field, std::string_view value) {
  if (field < 16 && value.size() < 0x80) {  // key and length one byte each
    char* at = room(2 + value.size());
    at[0] = static_cast<char>(field << 3 | kLengthDelimited);
    at[1] = static_cast<char>(value.size());
    std::memcpy(at + 2, value.data(), value.size());
    size_ += 2 + value.size();
    return;
  }
  key(field, kLengthDelimited);
  raw_varint(value.size());
  append(value.data(), value.size());
}

void ProtobufWriter::begin_sized(int field, std::size_t length) {
  key(field, kLengthDelimited);
  raw_varint(length);
}

std::size_t ProtobufWriter::header_size(int field, std::size_t length) {
  const auto varint_size = [](std::uint64_t value) {
    std::size_t size = 1;
    while (value >= 0x80) {
      value >>= 7;
      ++size;
    }
    return size;
  };
  return varint_size(static_cast<std::uint64_t>(field) << 3 | kLengthDelimited) +
         varint_size(length);
}

std::size_t ProtobufWriter::begin(int field) {
  key(field, kLengthDelimited);
  *room(1) = '\0';  // the length's first byte; end() makes room for more when needed
  return ++size_;
}

void ProtobufWriter::end(std::size_t marker) {
  std::uint64_t length = size_ - marker;
  char prefix[10];
  std::size_t size = 0;
  do {
    prefix[size++] = static_cast<char>((length & 0x7f) | (length >= 0x80 ? 0x80 : 0));
    length >>= 7;
  } while (length != 0);
  if (size > 1) {  // the body moves up to widen the length
    char* base = room(size - 1) - size_;
    std::memmove(base + marker + size - 1, base + marker, size_ - marker);
    size_ += size - 1;
  }
  std::memcpy(out_.data() + marker - 1, prefix, size);
}

}  // namespace supportd::obs::trace
