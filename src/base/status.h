// Status and Result<T>: how tensorperf reports what can fail in normal use (a malformed file, an
// unsupported operator, a build error, a missing record). Broken invariants are exceptions or
// asserts instead. Messages are written for the user: they say what failed and what to do.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tensorperf {

// The values reach logs and JSON as names (code_name), never as numbers.
enum class StatusCode {
  kOk,
  kInvalidArgument,  // bad input from the user: a flag, a model, a file's content
  kNotFound,         // a named thing does not exist (file, model, record)
  kIoError,          // the operating system refused (open, read, write)
  kCorruption,       // stored or received data is malformed
  kUnsupported,      // valid input that tensorperf does not handle (yet)
  kTimeout,          // an operation ran past its limit
  kInternal,         // a failure of a component tensorperf drives (a compiler, a server)
};

const char* code_name(StatusCode code);

class Status {
 public:
  Status() = default;  // OK

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status IoError(std::string msg) { return {StatusCode::kIoError, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
  static Status Unsupported(std::string msg) { return {StatusCode::kUnsupported, std::move(msg)}; }
  static Status Timeout(std::string msg) { return {StatusCode::kTimeout, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "ok", or the message alone: messages are complete sentences for the user.
  std::string ToString() const { return ok() ? std::string("ok") : message_; }

  // A copy with `context` prepended ("context: message"); OK stays OK.
  Status WithContext(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains its absence. REQUIRES: a Result built from a Status is not OK.
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : data_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(data_).ok() && "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace tensorperf

#define TP_CONCAT_INNER(a, b) a##b
#define TP_CONCAT(a, b) TP_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when `expr` (a Status) is not OK.
#define TP_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::tensorperf::Status _tp_status = (expr);    \
    if (!_tp_status.ok()) return _tp_status;     \
  } while (0)

// `lhs = value of expr` (a Result<T>), or return its Status from the enclosing function.
#define TP_ASSIGN_OR_RETURN(lhs, expr) TP_ASSIGN_OR_RETURN_IMPL(TP_CONCAT(_tp_result_, __LINE__), lhs, expr)
#define TP_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
