// Error values returned across module boundaries. Success costs nothing; an error carries a
// code from a fixed set and a message meant for the person who sent the bad input.
// Turned into an HTTP status and an OpenAI error body once, at the edge (api/errors.h).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace supportd {

enum class ErrorCode {
  kInvalidArgument,  // the caller's input is wrong; fix it and retry
  kNotFound,         // a named thing (model, session, route) does not exist
  kTooLarge,         // input over a configured limit (body, prompt vs context)
  kOverloaded,       // a queue is full; retry later
  kRateLimited,      // the caller's rate limit is reached; retry later
  kUnauthenticated,  // missing or unknown credentials
  kDeadline,         // cannot finish before the caller's deadline
  kUnavailable,      // not ready yet, shutting down, or an upstream is unreachable
  kCancelled,        // the caller went away or asked to stop
  kUnsupported,      // valid request for something this build does not do
  kCorrupt,          // a file or peer sent data that cannot be decoded
  kIo,               // the operating system refused (open, read, write)
  kInternal,         // a bug or an engine failure
};

const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::string param;      // the offending input field, when there is one
  int retry_after_s = 0;  // for kOverloaded / kDeadline / kUnavailable: when to try again

  static Error invalid(std::string message, std::string param = {}) {
    return {ErrorCode::kInvalidArgument, std::move(message), std::move(param), 0};
  }
  static Error make(ErrorCode code, std::string message) {
    return {code, std::move(message), {}, 0};
  }
};

// Holds a T or an Error. Minimal stand-in for C++23 std::expected.
template <typename T>
class Result {
 public:
  // Holds an internal error until assigned (some async frameworks need a default value).
  Result() : data_(Error{ErrorCode::kInternal, "no value", {}, 0}) {}
  Result(T value) : data_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// Result of an operation that returns nothing on success.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  static Status ok_status() { return {}; }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace supportd
