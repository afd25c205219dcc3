// Reference runs: "the paper trained for 6 days on 8x V100". The work of a training
// request is what the model predicts the reference hardware processes in its hours; the
// request then asks how long that work takes elsewhere.
// Functions of their arguments and the resolver's catalog; one thread per resolver.
// Errors are found within the reference run: Error::Within(Part::kReferenceRun).
#pragma once

#include <optional>
#include <string>

#include "model/hardware.h"
#include "model/training.h"
#include "plan/hardware.h"
#include "plan/requests.h"

namespace gpuplan::plan {

// The work a reference run did, as the model predicts it.
struct ReferenceWork {
  model::Cluster cluster;
  std::string instance_type, cloud;  // when the reference is a catalog instance
  double hours = 0;
  model::Precision precision = model::Precision::kBf16;
  // Why the reference was estimated with another recipe than the request's, which the
  // reference GPU cannot run ("" when it ran the request's): MXFP8 as delayed (per-tensor)
  // scaling; NVFP4 as what precision auto trains there (fp8 or bf16).
  std::string recipe_fallback;
  double samples_per_s = 0;
  double samples = 0, p10_samples = 0, p90_samples = 0;
  double tokens = 0;
};

// The request with its reference run (if any) turned into a dataset: the samples the
// model predicts the reference hardware processes in its hours (`*work` says what it did).
// A request without a reference run is returned as it is.
Result<TrainingRequest> WithReferenceWork(const HardwareResolver& hardware,
                                          const TrainingRequest& request,
                                          std::optional<ReferenceWork>* work);

// Widens `e`'s time range by the reference's work range: both predictions' uncertainty,
// combined in log space as if independent.
void WidenByReference(model::TrainingEstimate& e, const ReferenceWork& work);

// What a reference run's work is, in words, for assumptions.
std::string ReferenceAssumption(const ReferenceWork& work);

}  // namespace gpuplan::plan
