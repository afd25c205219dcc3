// POST /api/v1/recommendations and POST /api/v1/compare: body bytes -> the server's body
// reader -> the decoders and api::PlanAnswer over the seeded catalog (decoding, constraints,
// every candidate offer through the model, ranking) -> the JSON answer or the problem.
// Both are run on every input. Slow inputs matter here: the server bounds this work with
// a per-request deadline (plan/deadline.h), which the fuzzer leaves unset, so a -timeout
// report is a request that would be cut off with 503, not a crash.
#include <cstddef>
#include <cstdint>

#include "api/recommender.h"
#include "fuzz/fuzz_common.h"

GPUPLAN_FUZZ_SEED_STORE_FIRST()

namespace {
// A decoding error is the request's problem; a decoded request gets the planner's answer.
template <typename Request>
void Answer(const httplib::Request& req, const gpuplan::Result<Request>& request) {
  using namespace gpuplan::fuzz;
  if (!request.ok()) return CheckErrorAnswer(req, request.error());
  CheckAnswer(req, gpuplan::api::PlanAnswer(SeededStore(), *request));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  std::string text = Text(data, size);
  auto req = PostRequest("/api/v1/recommendations", text);
  if (auto body = ReadBody(req)) Answer(req, api::DecodeRecommendRequest(*body));
  req = PostRequest("/api/v1/compare", text);
  if (auto body = ReadBody(req)) Answer(req, api::DecodeCompareRequest(*body));
  return 0;
}
