// A deterministic discrete-event simulation of one replica's scheduler, iteration by
// iteration: requests arrive (all at once, at a constant Poisson rate, or from a fixed number
// of clients), wait for a sequence slot and KV-cache room, are prefilled (in chunks of the
// token budget, or in prefill-only iterations), decode one token per iteration, and leave.
// Each iteration is timed by TimeIteration. It is what `gpuplan calibrate --serving`
// predicts published benchmark runs with, and the reference the closed-form load model
// (serving_load.h) is tested against. Work is bounded: at most kMaxSimulatedRequests
// requests and kMaxSimulatedIterations iterations. Pure; thread-safe.
#pragma once

#include <cstdint>

#include "model/serving_engine.h"
#include "model/serving_iteration.h"

namespace gpuplan::model {

inline constexpr int kMaxSimulatedRequests = 20000;
inline constexpr long kMaxSimulatedIterations = 2000000;

struct SimulatedLoad {
  int requests = 0;            // how many arrive (at most kMaxSimulatedRequests)
  double rate = 0;             // requests/s; 0 = all at time 0 (a burst)
  bool evenly_spaced = false;  // arrivals every 1 / rate (a constant-rate load generator), not Poisson
  int max_concurrency = 0;     // clients that each send the next request when one ends; 0 = none
  double mean_input = 0;       // prompt tokens
  double mean_output = 0;      // generated tokens
  double length_cv = 0;        // spread of lengths (log-normal); 0 = every request the same
  // Outputs that stop at EOS below this maximum (0 = none): uniform between 2 x mean - max and
  // max, so the longest (which decides a burst's duration) reaches the maximum.
  double max_output = 0;
  double cached_prompt_tokens = 0;  // of each prompt, found in the prefix cache
  double warmup_share = 0;     // of requests left out of the latency statistics
  uint32_t seed = 1;
};

struct Percentiles {
  double mean = 0, p50 = 0, p95 = 0;
};

struct SimulationResult {
  double duration_s = 0;       // first arrival to last completion
  double output_tokens = 0;
  double requests_per_s = 0;   // completed / duration
  double output_tokens_per_s = 0;
  Percentiles ttft_s, tpot_s, e2e_s;
  double itl_median_s = 0;     // median time between consecutive tokens of a request
  double mean_batch = 0;       // decoding sequences per decode iteration, time-weighted
  int preemptions = 0;
  bool truncated = false;      // hit kMaxSimulatedIterations
};

// `kv_capacity_tokens`: tokens of KV cache the replica holds.
SimulationResult SimulateServing(const ReplicaShape& r, const EngineSettings& engine,
                                 const EngineConstants& k, double kv_capacity_tokens,
                                 const SimulatedLoad& load);

}  // namespace gpuplan::model
