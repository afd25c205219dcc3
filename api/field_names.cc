#include "api/field_names.h"

#include "api/json_reader.h"

namespace gpuplan::api {

namespace {

// Where a planning body carries `object` at its root ("" for the root's own fields).
const char* RootOf(Part object) {
  switch (object) {
    case Part::kWorkload: return "/workload";
    case Part::kHardware: return "/hardware";
    case Part::kDataset: return "/dataset";
    case Part::kPricing: return "/pricing";
    case Part::kEngine: return "/engine";
    case Part::kConstraints: return "/constraints";
    case Part::kReferenceRun: return "/reference_run";
    case Part::kOwnedTraining: return "/training";
    case Part::kNone:
    case Part::kInput:
    case Part::kJob:
    case Part::kServing:
    case Part::kGpu:
    case Part::kExport: return "";
  }
  return "";
}

// A field on its way out through the parts it was found within: its pointer so far, and
// the part that now holds it (the object itself until a nesting part claims it).
struct Placed {
  std::string pointer;
  Part holder;
};

// `p` (a field of `id`) placed within `part`.
Placed Nest(Part part, const FieldId& id, Placed p) {
  switch (part) {
    case Part::kReferenceRun:
      // The run brings its own hardware, hours and precision; it shares the rest.
      if (p.holder == Part::kHardware) return {"/reference_run" + p.pointer, part};
      if (p.holder == Part::kJob && id.name == "precision") return {"/reference_run/precision", part};
      if (p.holder == Part::kDataset && id.name == "hours") return {"/reference_run/hours", part};
      return p;
    case Part::kOwnedTraining:
      // The job runs on the owned GPUs, priced in the ownership request's currency.
      if (p.holder == Part::kHardware) return {"/gpus", Part::kInput};
      if (p.holder == Part::kInput && id.name == "currency") return p;
      return {"/training" + p.pointer, part};
    default:
      return {RootOf(part) + p.pointer, part};
  }
}

std::string Map(const FieldId& id) {
  if (id.object == Part::kExport) return id.name;  // a query parameter
  Placed p{RootOf(id.object), id.object};
  if (!id.name.empty()) p.pointer.append("/").append(PointerEscape(id.name));
  if (id.item >= 0) p.pointer.append("/").append(std::to_string(id.item));
  for (auto part = id.within.rbegin(); part != id.within.rend(); ++part) {
    p = Nest(*part, id, std::move(p));
  }
  return p.pointer;
}

}  // namespace

std::string WireName(const FieldError& f) {
  return f.id.object == Part::kNone ? f.field : Map(f.id);
}

Error WithWireNames(Error e) {
  for (FieldError& f : e.fields) {
    f.field = WireName(f);
    f.id = {};
  }
  return e;
}

}  // namespace gpuplan::api
