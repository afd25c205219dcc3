// POST /api/v1/estimates/training and POST /api/v1/estimates/training:batch: body bytes
// -> the server's body reader -> api::DecodeTrainingRequest -> api::PlanAnswer (the planner: model
// and pricing against the seeded catalog) -> the JSON answer or the problem answer.
// The batch part mirrors PostTrainingBatch (api/estimate_routes.cc): "scenarios" must be
// an array of 1..1000 objects; each is decoded (only the first kModelScenarios are also
// estimated, to keep executions fast).
#include <cstddef>
#include <cstdint>

#include "api/json_reader.h"
#include "api/plan_request.h"
#include "api/recommender.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

constexpr size_t kMaxBatchScenarios = 1000;
constexpr size_t kModelScenarios = 4;

void Training(const httplib::Request& req, const nlohmann::json& body, bool estimate) {
  auto request = api::DecodeTrainingRequest(body);
  if (!request.ok()) return CheckRejection(request.error(), "DecodeTrainingRequest", &req);
  if (!estimate) return;
  CheckAnswer(req, api::PlanAnswer(SeededStore(), *request));
}

void Batch(const httplib::Request& req, const nlohmann::json& body) {
  std::vector<FieldError> errors;
  api::JsonReader r(body, "", &errors);
  const nlohmann::json* scenarios = r.Raw("scenarios");
  r.Finish();
  if (!scenarios || !scenarios->is_array()) {
    errors.push_back({"/scenarios", "scenarios must be an array of training requests"});
  } else if (scenarios->empty() || scenarios->size() > kMaxBatchScenarios) {
    errors.push_back({"/scenarios", "scenarios must hold 1 to 1000 requests"});
  }
  if (!errors.empty()) return CheckErrorAnswer(req, api::BodyError(errors));
  for (size_t i = 0; i < scenarios->size(); ++i) {
    const nlohmann::json& s = (*scenarios)[i];
    if (s.is_object()) Training(req, s, i < kModelScenarios);
  }
}

}  // namespace
}  // namespace gpuplan::fuzz

GPUPLAN_FUZZ_SEED_STORE_FIRST()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::fuzz;
  std::string text = Text(data, size);
  {
    auto req = PostRequest("/api/v1/estimates/training", text);
    if (auto body = ReadBody(req)) Training(req, *body, true);
  }
  {
    auto req = PostRequest("/api/v1/estimates/training:batch", text);
    if (auto body = ReadBody(req)) Batch(req, *body);
  }
  return 0;
}
