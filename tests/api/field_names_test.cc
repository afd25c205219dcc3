// The one mapping from typed fields (model/result.h) to where each request carries them
// (api/field_names.h): pointers of the root layout, the nesting of a reference run and of an
// ownership request's training job, query parameters, and the problem+json that uses it.
#include "api/field_names.h"

#include <gtest/gtest.h>

#include <sstream>

#include "api/problem.h"
#include "model/workload.h"
#include "model/workload_presets.h"
#include "server/cli_errors.h"

namespace gpuplan::api {
namespace {

FieldError At(FieldId id) { return FieldError::At(std::move(id), "bad"); }

// `id` as found within `parts`, outermost first (as plan/ nests it with Error::Within).
FieldError Within(FieldId id, std::initializer_list<Part> parts) {
  Error e = Error::Invalid(std::move(id), "bad");
  for (auto part = std::rbegin(parts); part != std::rend(parts); ++part) {
    e = std::move(e).Within(*part);
  }
  return e.fields.at(0);
}

TEST(FieldNamesTest, ModelObjectsLiveAtTheRootOfAPlanningBody) {
  EXPECT_EQ(WireName(At({Part::kWorkload, "params"})), "/workload/params");
  EXPECT_EQ(WireName(At({Part::kWorkload, ""})), "/workload");
  EXPECT_EQ(WireName(At({Part::kHardware, "gpus_per_node"})), "/hardware/gpus_per_node");
  EXPECT_EQ(WireName(At({Part::kDataset, "hours"})), "/dataset/hours");
  EXPECT_EQ(WireName(At({Part::kPricing, "deadline_hours"})), "/pricing/deadline_hours");
  EXPECT_EQ(WireName(At({Part::kEngine, "max_num_seqs"})), "/engine/max_num_seqs");
  EXPECT_EQ(WireName(At({Part::kConstraints, "gpus", 1})), "/constraints/gpus/1");
  // The job's settings, the serving load and the request's own fields are root fields.
  EXPECT_EQ(WireName(At({Part::kJob, "precision"})), "/precision");
  EXPECT_EQ(WireName(At({Part::kServing, "input_tokens"})), "/input_tokens");
  EXPECT_EQ(WireName(At({Part::kInput, "gpus", 0})), "/gpus/0");
  EXPECT_EQ(WireName(At({Part::kInput, ""})), "");  // the whole body
  // How a plan is exported arrives as a query parameter.
  EXPECT_EQ(WireName(At({Part::kExport, "item"})), "item");
  // A name the wire layer gave is kept as it is.
  EXPECT_EQ(WireName(FieldError{"line 3", "bad"}), "line 3");
  EXPECT_EQ(WireName(FieldError{"/scenarios", "bad"}), "/scenarios");
}

TEST(FieldNamesTest, AReferenceRunOwnsItsHardwareHoursAndPrecision) {
  const Part run = Part::kReferenceRun;
  EXPECT_EQ(WireName(Within({Part::kHardware, "gpu"}, {run})), "/reference_run/hardware/gpu");
  EXPECT_EQ(WireName(Within({Part::kHardware, ""}, {run})), "/reference_run/hardware");
  EXPECT_EQ(WireName(Within({Part::kDataset, "hours"}, {run})), "/reference_run/hours");
  EXPECT_EQ(WireName(Within({Part::kJob, "precision"}, {run})), "/reference_run/precision");
  // The run shares the request's workload, batch and currency.
  EXPECT_EQ(WireName(Within({Part::kWorkload, "params"}, {run})), "/workload/params");
  EXPECT_EQ(WireName(Within({Part::kJob, "global_batch_size"}, {run})), "/global_batch_size");
  EXPECT_EQ(WireName(Within({Part::kInput, "currency"}, {run})), "/currency");
}

TEST(FieldNamesTest, AnOwnershipTrainingJobLivesUnderTrainingOnTheOwnedGpus) {
  const Part owned = Part::kOwnedTraining;
  EXPECT_EQ(WireName(Within({Part::kWorkload, "params"}, {owned})), "/training/workload/params");
  EXPECT_EQ(WireName(Within({Part::kWorkload, ""}, {owned})), "/training/workload");
  EXPECT_EQ(WireName(Within({Part::kJob, "precision"}, {owned})), "/training/precision");
  EXPECT_EQ(WireName(Within({Part::kConstraints, "gpus", 0}, {owned})),
            "/training/constraints/gpus/0");
  EXPECT_EQ(WireName(Within({Part::kHardware, "gpus_per_node"}, {owned})), "/gpus");
  EXPECT_EQ(WireName(Within({Part::kInput, "currency"}, {owned})), "/currency");
  // A reference run within the training job: the run's own fields under both.
  EXPECT_EQ(WireName(Within({Part::kHardware, "gpu"}, {owned, Part::kReferenceRun})),
            "/training/reference_run/hardware/gpu");
  EXPECT_EQ(WireName(Within({Part::kDataset, "hours"}, {owned, Part::kReferenceRun})),
            "/training/reference_run/hours");
  EXPECT_EQ(WireName(Within({Part::kWorkload, "params"}, {owned, Part::kReferenceRun})),
            "/training/workload/params");
  EXPECT_EQ(WireName(Within({Part::kInput, "currency"}, {owned, Part::kReferenceRun})),
            "/currency");
}

TEST(FieldNamesTest, WireNamesReplaceTheTypedIdentity) {
  Error e = Error::Invalid(FieldId{Part::kDataset, "tokens"}, "bad");
  e.fields.push_back({"/scenarios", "worse"});
  Error named = WithWireNames(std::move(e));
  EXPECT_EQ(named.fields[0].field, "/dataset/tokens");
  EXPECT_EQ(named.fields[0].id, FieldId{});
  EXPECT_EQ(named.fields[1].field, "/scenarios");
}

TEST(FieldNamesTest, ProblemsAndTheCliNameAModelErrorByItsPointer) {
  model::Workload w = *model::FindPreset("llama-2-7b");
  w.params = 1e9;  // disagrees with the shape
  Status invalid = model::ValidateWorkload(w);
  ASSERT_FALSE(invalid.ok());
  Error nested = Error(invalid.error()).Within(Part::kOwnedTraining);

  nlohmann::json problem = ProblemJson(invalid.error());
  EXPECT_EQ(problem["errors"][0]["pointer"], "/workload/params") << problem.dump();
  EXPECT_EQ(ProblemJson(nested)["errors"][0]["pointer"], "/training/workload/params");
  nlohmann::json item = ProblemJson(Error::Invalid(FieldId{Part::kExport, "item"}, "no such item"));
  EXPECT_EQ(item["errors"][0]["parameter"], "item") << item.dump();

  std::ostringstream err;
  EXPECT_EQ(server::ReportError(nested, err), 2);
  EXPECT_NE(err.str().find("  /training/workload/params: params 1e+09"), std::string::npos)
      << err.str();
}

}  // namespace
}  // namespace gpuplan::api
