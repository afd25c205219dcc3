// POST /api/v1/estimates/inference: body bytes -> the server's body reader ->
// api::DecodeInferenceRequest -> api::PlanAnswer (serving model and pricing against the
// seeded catalog) -> the JSON answer or the problem answer.
#include <cstddef>
#include <cstdint>

#include "api/plan_request.h"
#include "api/recommender.h"
#include "fuzz/fuzz_common.h"

GPUPLAN_FUZZ_SEED_STORE_FIRST()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  auto req = PostRequest("/api/v1/estimates/inference", Text(data, size));
  auto body = ReadBody(req);
  if (!body) return 0;
  auto request = api::DecodeInferenceRequest(*body);
  if (!request.ok()) {
    CheckRejection(request.error(), "DecodeInferenceRequest", &req);
    return 0;
  }
  CheckAnswer(req, api::PlanAnswer(SeededStore(), *request));
  return 0;
}
