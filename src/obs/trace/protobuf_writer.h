// A small writer of the Protocol Buffers wire format (https://protobuf.dev/programming-guides/
// encoding/): varints, fixed 32/64-bit fields, length-delimited bytes and nested messages, with
// canonical (shortest) length prefixes. Enough for the OTLP messages supportd sends; it knows
// no schema: the encoder (otlp_encoder.h) says which field is which.
// Thread-safety: none; one writer per message being built.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace supportd::obs::trace {

class ProtobufWriter {
 public:
  // Wire types (the low three bits of a field's key).
  enum WireType : std::uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

  void varint(int field, std::uint64_t value);
  void signed_varint(int field, std::int64_t value) {  // int32/int64 (two's complement)
    varint(field, static_cast<std::uint64_t>(value));
  }
  void boolean(int field, bool value) { varint(field, value ? 1 : 0); }
  void fixed64(int field, std::uint64_t value);
  void fixed32(int field, std::uint32_t value);
  void float64(int field, double value);
  void bytes(int field, std::string_view value);  // strings too (UTF-8)

  // A nested message: begin() before its fields, end() with the marker after them.
  std::size_t begin(int field);
  void end(std::size_t marker);
  // A nested message whose `length` is known: its key and length, then the caller writes
  // exactly `length` bytes (fields, or encoded() ones).
  void begin_sized(int field, std::size_t length);
  // Bytes already in the wire format (fields encoded by another writer), appended as they are.
  void encoded(std::string_view fields) { append(fields.data(), fields.size()); }
  // How many bytes begin_sized(field, length) writes.
  static std::size_t header_size(int field, std::size_t length);

  // `bytes` zero bytes: room for what is written there later.
  void pad(std::size_t bytes) {
    std::memset(room(bytes), 0, bytes);
    size_ += bytes;
  }
  // Empties the message and takes `memory` as its room (e.g. a sent message's, already
  // touched), without clearing it.
  void adopt(std::string memory) {
    out_ = std::move(memory);
    out_.resize(out_.capacity());
    size_ = 0;
  }
  // Empties the message, keeping its memory (a writer reused for message after message).
  void clear() { size_ = 0; }
  std::string_view data() const { return {out_.data(), size_}; }
  std::string take() {
    out_.resize(size_);
    size_ = 0;
    return std::move(out_);
  }
  void reserve(std::size_t bytes) {
    if (out_.size() < bytes) out_.resize(bytes);
  }
  std::size_t capacity() const { return out_.size(); }

 private:
  // The message is out_'s first size_ bytes; the rest is room, so that a field is written with
  // plain stores after one check (an encoder writes hundreds of thousands of fields a second
  // under load, and std::string's append checks and terminates on every call).
  char* room(std::size_t bytes) {
    if (size_ + bytes > out_.size()) grow(bytes);
    return out_.data() + size_;
  }
  void grow(std::size_t bytes);
  void append(const char* bytes, std::size_t size) {
    std::memcpy(room(size), bytes, size);
    size_ += size;
  }
  void key(int field, WireType type) { raw_varint(static_cast<std::uint64_t>(field) << 3 | type); }
  void raw_varint(std::uint64_t value);
  void raw_little_endian(std::uint64_t value, int bytes);
  std::string out_;
  std::size_t size_ = 0;
};

}  // namespace supportd::obs::trace
