// The Protocol Buffers wire format (see protobuf_writer.h).
#include "obs/trace/protobuf_writer.h"

#include <bit>
#include <cstring>

namespace supportd::obs::trace {

// A varint's bytes are written at once: an append per field, not a push per byte (the
// exporter writes hundreds of thousands of fields a second under load).
void ProtobufWriter::raw_varint(std::uint64_t value) {
  if (value < 0x80) {  // most keys, lengths and small integers: one byte
    out_.push_back(static_cast<char>(value));
    return;
  }
  char buffer[10];
  std::size_t size = 0;
  while (value >= 0x80) {
    buffer[size++] = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  buffer[size++] = static_cast<char>(value);
  out_.append(buffer, size);
}

void ProtobufWriter::raw_little_endian(std::uint64_t value, int bytes) {
  char buffer[8];
  for (int i = 0; i < bytes; ++i) {
    buffer[i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  out_.append(buffer, static_cast<std::size_t>(bytes));
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
  if (field < 16 && value.size() < 0x80) {  // key and length one byte each: one append for both
    const char head[2] = {static_cast<char>(field << 3 | kLengthDelimited),
                          static_cast<char>(value.size())};
    out_.append(head, 2);
  } else {
    key(field, kLengthDelimited);
    raw_varint(value.size());
  }
  out_.append(value);
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
