// Where a request carries the fields model/ and plan/ name by type (model/result.h): the one
// mapping from a FieldId (object, field, nesting) to the JSON pointer of the request being
// answered, or to the query parameter it arrived as. Every route's problem+json (via
// api/problem.h) and the CLI's error output name fields through it.
//
// Every planning body (training and inference estimates, recommendations, comparisons,
// measured runs) carries the model objects at its root: "/workload", "/hardware",
// "/dataset", "/pricing", "/engine", "/constraints", "/reference_run"; the job's settings,
// the serving load and the request's own fields are root fields ("/precision",
// "/input_tokens", "/currency"). Nested parts:
//   reference run   the run's hardware is "/reference_run/hardware", its precision
//                   "/reference_run/precision", its hours "/reference_run/hours"; the
//                   workload and the rest are the request's own (at the root);
//   owned training  an ownership request's training job is "/training"; its hardware is
//                   the owned GPUs ("/gpus") and its currency the request's ("/currency").
// How a plan is exported (Part::kExport) arrives as query parameters ("item").
#pragma once

#include <string>

#include "model/result.h"

namespace gpuplan::api {

// The wire's name of `f`: the mapped FieldId of a typed field; otherwise the name the
// wire layer gave it (a JSON pointer, a query parameter or "line N").
std::string WireName(const FieldError& f);

// `e` with every field's wire name in FieldError::field and no typed identity left: for
// code that reads or rewrites wire names as text.
Error WithWireNames(Error e);

}  // namespace gpuplan::api
