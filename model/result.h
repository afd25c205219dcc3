// Errors as values, shared by every layer. An Error carries a code that knows nothing
// of HTTP, the input fields it concerns and a readable message; the api layer maps codes
// to HTTP statuses in one table (api/problem.h).
//
// Field identity. model/ and plan/ name a field by what it is, never by where a request
// carries it: the object it belongs to (Part) and the field's own name in that object
// (FieldId{Part::kWorkload, "params"}), plus, set by plan/ with Error::Within, the request
// parts it was found within (a reference run, an ownership request's training job). The
// wire layer alone knows where each request nests its objects: api/field_names.h turns a
// FieldId into the JSON pointer of the request being answered ("/workload/params",
// "/training/workload/params") or a query parameter. The wire layer (api/, db/, server/)
// names its own fields by wire name directly: a JSON pointer, a query parameter or
// "line N" of a CSV file.
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

// The object (or planner request part) a field belongs to.
enum class Part : unsigned char {
  kNone,   // no typed identity: FieldError::field is the wire's name (api, db, server)
  kInput,  // the input itself: its own fields ("currency", "gpu"), "" the whole input
  // model objects
  kWorkload,  // model::Workload
  kHardware,  // model::Hardware (and the planner's hardware request)
  kJob,       // model::TrainingJob's settings (precision, global_batch_size, zero_stage...)
  kDataset,   // the training job's size (samples, epochs, tokens, hours)
  kServing,   // model::InferenceRequest's own fields (input_tokens, tensor_parallel...)
  kEngine,    // the serving engine's settings (model/serving_engine.h)
  kPricing,   // how a run is priced (model/cost.h: interruption rate, deadline...)
  kGpu,       // a catalog GPU (model::GpuSpec)
  // parts of a planner request (plan/requests.h)
  kConstraints,    // a recommendation's constraints
  kReferenceRun,   // a training request's reference run
  kOwnedTraining,  // the training job an ownership request runs on the owned GPUs
  kExport,         // how a plan is exported (the recommendation item to export)
};

// A field by the object it belongs to. Set by model/ and plan/.
struct FieldId {
  FieldId() = default;
  FieldId(Part of, std::string field, int list_item = -1)  // NOLINT: {Part::kWorkload, "params"}
      : object(of), name(std::move(field)), item(list_item) {}

  Part object = Part::kNone;
  std::string name;          // the field's own name in `object`; "" names the object itself
  int item = -1;             // the item of the list `name` that the error concerns, if one
  std::vector<Part> within;  // the request parts `object` was found within, outermost first

  bool operator==(const FieldId&) const = default;
};

struct FieldError {
  std::string field;   // the wire's name (api, db, server): JSON pointer, parameter, "line N"
  std::string detail;  // what is wrong with it, readable by a person
  FieldId id = {};     // the typed identity (model, plan); the wire layer maps it to `field`

  static FieldError At(FieldId id, std::string detail) {
    return FieldError{{}, std::move(detail), std::move(id)};
  }
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

  // This error as found within `part` of a request: `part` becomes the outermost nesting
  // of every typed field (plan/ nests the errors of a request part it evaluates).
  Error Within(Part part) && {
    for (FieldError& f : fields) {
      if (f.id.object != Part::kNone) f.id.within.insert(f.id.within.begin(), part);
    }
    return std::move(*this);
  }

  // kInvalidArgument on one field: typed (model, plan) or by wire name (api, db, server).
  static Error Invalid(FieldId field, std::string detail) {
    Error e{ErrorCode::kInvalidArgument, detail, {}};
    e.fields.push_back(FieldError::At(std::move(field), std::move(detail)));
    return e;
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
  // A value or an error is copied or moved in once (a by-value parameter would move a
  // returned plan twice: planning answers are large).
  Result(const T& value) : data_(value) {}            // NOLINT: implicit by design
  Result(T&& value) : data_(std::move(value)) {}      // NOLINT: implicit by design
  Result(const Error& error) : data_(error) {}        // NOLINT: implicit by design
  Result(Error&& error) : data_(std::move(error)) {}  // NOLINT: implicit by design

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
