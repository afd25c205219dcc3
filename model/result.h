// Errors as values, shared by every layer. An Error carries a code that knows nothing
// of HTTP, the input field it concerns and a readable message. model/ and plan/ name
// fields by dotted name ("hardware.nodes", "constraints.gpus.1"); the api layer turns
// those into JSON pointers ("/hardware/nodes") and itself uses pointers for body fields
// and plain names for query parameters. It maps codes to HTTP statuses in one table.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpuplan {

enum class ErrorCode {
  kInvalidArgument,  // a field of the input is out of range, malformed or unknown
  kNotFound,         // the named resource does not exist
  kConflict,         // the resource exists already, or a concurrent change won
  kUnavailable,      // a dependency (the database) cannot answer now
  kInternal,         // a bug or a broken environment
};

// What a refusal is, beyond the field it names: the reasons a recommendation counts an
// option out for (an input valid in itself that this hardware cannot run), kNone for every
// other error. Set where the model or planner refuses; read by plan/ (never by matching
// field names or messages).
enum class Refusal {
  kNone,
  kPrecisionUnsupported,    // the GPU has no unit for the precision
  kBatchTooSmall,           // fewer samples per step than data-parallel GPUs
  kLayoutDoesNotDivide,     // the parallel layout does not divide the GPUs, or spans past NVLink
  kTensorParallelTooLarge,  // a serving replica wider than the node
  kOverMaxGpus,             // the load needs more GPUs than one plan may use
};

struct FieldError {
  std::string field;   // dotted name (model, plan), JSON pointer or parameter name (api)
  std::string detail;  // what is wrong with it, readable by a person
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::vector<FieldError> fields;
  Refusal refusal = Refusal::kNone;

  // This error, marked as a refusal of kind `why`.
  Error Because(Refusal why) && {
    refusal = why;
    return std::move(*this);
  }

  static Error Invalid(std::string field, std::string detail) {
    Error e{ErrorCode::kInvalidArgument, detail, {}};
    e.fields.push_back({std::move(field), std::move(detail)});
    return e;
  }
  static Error NotFound(std::string message) {
    return Error{ErrorCode::kNotFound, std::move(message), {}};
  }
  static Error Unavailable(std::string message) {
    return Error{ErrorCode::kUnavailable, std::move(message), {}};
  }
  static Error Internal(std::string message) {
    return Error{ErrorCode::kInternal, std::move(message), {}};
  }
};

// Result<T> holds either a value or an Error. Accessing the wrong side is a bug (asserted).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    assert(ok());
    return std::get<T>(data_);
  }
  T& value() & {
    assert(ok());
    return std::get<T>(data_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(data_));
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<Error>(data_);
  }

 private:
  std::variant<T, Error> data_;
};

// Status is a Result with no value: success or an Error.
struct Ok {};
using Status = Result<Ok>;
inline Status OkStatus() { return Ok{}; }

}  // namespace gpuplan
