// The Protocol Buffers wire format (see protobuf_writer.h).
#include "obs/trace/protobuf_writer.h"

#include <bit>
#include <cstring>

namespace supportd::obs::trace {

void ProtobufWriter::raw_varint(std::uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void ProtobufWriter::raw_little_endian(std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out_.push_back(static_cast<char>(value & 0xff));
    value >>= 8;
  }
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
  key(field, kLengthDelimited);
  raw_varint(value.size());
  out_.append(value);
}

std::size_t ProtobufWriter::begin(int field) {
  key(field, kLengthDelimited);
  out_.push_back('\0');  // the length's first byte; end() makes room for more when needed
  return out_.size();
}

void ProtobufWriter::end(std::size_t marker) {
  std::uint64_t length = out_.size() - marker;
  char prefix[10];
  int size = 0;
  do {
    prefix[size++] = static_cast<char>((length & 0x7f) | (length >= 0x80 ? 0x80 : 0));
    length >>= 7;
  } while (length != 0);
  if (size > 1) out_.insert(marker, static_cast<std::size_t>(size - 1), '\0');
  std::memcpy(out_.data() + marker - 1, prefix, static_cast<std::size_t>(size));
}

}  // namespace supportd::obs::trace
