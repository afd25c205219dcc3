// POST /api/v1/recommendations and POST /api/v1/compare: body bytes -> the server's body
// reader -> api::Recommend / api::Compare over the seeded catalog (decoding, constraints,
// every candidate offer through the model, ranking) -> the JSON answer or the problem.
// Both are run on every input. Slow inputs matter here: the server bounds this work with
// a per-request deadline (plan/deadline.h), which the fuzzer leaves unset, so a -timeout
// report is a request that would be cut off with 503, not a crash.
#include <cstddef>
#include <cstdint>

#include "api/recommender.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpuplan::fuzz::SeededStore();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  std::string text = Text(data, size);
  auto req = PostRequest("/api/v1/recommendations", text);
  if (auto body = ReadBody(req)) CheckAnswer(req, api::Recommend(SeededStore(), *body));
  req = PostRequest("/api/v1/compare", text);
  if (auto body = ReadBody(req)) CheckAnswer(req, api::Compare(SeededStore(), *body));
  return 0;
}
