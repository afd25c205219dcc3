// The steady state of one replica under load, in closed form (docs/model.md "Serving model
// v3"): the largest decode batch the engine runs (engine caps, KV capacity, the token
// budget, the client's concurrency), saturated throughput from the closed loop of each
// request's prompt and output tokens passing through iterations, and p50/p95 of TTFT, TPOT
// and end-to-end latency at a Poisson request rate:
//   - the decoding batch b solves b = rate x output_tokens x iteration(b) (Little's law);
//     its p95 is b + 1.645 sqrt(b) / (1 - e) (a Poisson count in an M/G/inf system, amplified
//     by the feedback of the batch on the iteration time, elasticity e), capped;
//   - a request waits for a sequence slot as in M/M/c (Erlang C) with c = the batch cap;
//   - its prompt waits for the token budget as in M/D/1, then runs in chunks of the budget.
// Tested against the discrete-event simulation (serving_simulation.h). Pure; thread-safe.
#pragma once

#include "model/serving_engine.h"
#include "model/serving_iteration.h"
#include "model/serving_simulation.h"

namespace gpuplan::model {

// Tokens of KV cache one replica holds: gpu_memory_utilization of its GPUs' memory, less the
// weights, the profile run's activations and the non-torch reserve.
double KvCapacityTokens(const ReplicaShape& r, const GpuSpec& gpu, const EngineSettings& engine,
                        const EngineConstants& k);

// Bytes per GPU the engine keeps beside weights and KV cache: the profile run's activation
// peak over the token budget, and the non-torch reserve.
double EngineReserveBytesPerGpu(const ReplicaShape& r, const EngineSettings& engine,
                                const EngineConstants& k);

// Per request: prompt tokens computed (after the prefix cache) and kept, and output tokens.
struct RequestShape {
  double input_tokens = 0;   // computed prompt tokens
  double cached_tokens = 0;  // prompt tokens found in the prefix cache (kept, not computed)
  double output_tokens = 0;
};

// What bounds the decode batch. `effective` is the least of the others (client_concurrency 0
// = none given); `binding` names it.
struct BatchCap {
  int effective = 0;
  int max_num_seqs = 0;
  int kv_capacity = 0;        // requests whose whole context fits in the KV cache
  int token_budget = 0;       // decodes the token budget carries beside their prompts' chunks
  int client_concurrency = 0;
  const char* binding = "";   // "max_num_seqs", "kv_capacity", "token_budget", "client_concurrency"
};
BatchCap BatchLimit(const EngineSettings& engine, double kv_tokens, const RequestShape& q,
                    int client_concurrency);

// One operating point of a replica.
struct OperatingPoint {
  double requests_per_s = 0;  // served per replica
  double tokens_per_s = 0;    // output tokens per replica
  double batch = 0;           // mean decoding sequences
  IterationTime iteration;    // a mean iteration (decodes with their share of prompt chunks)
  Percentiles ttft_s, tpot_s, e2e_s;
  bool stable = true;         // false: the rate is over the replica's capacity
};

// The closed loop with `concurrency` requests always in flight (the saturated state at the
// batch cap): throughput and latency per request.
OperatingPoint ClosedLoop(const ReplicaShape& r, const EngineSettings& engine,
                          const EngineConstants& k, const RequestShape& q, int concurrency);

// Poisson arrivals at `rate` requests/s; `cap` from BatchLimit. Over capacity: stable false.
OperatingPoint AtRate(const ReplicaShape& r, const EngineSettings& engine, const EngineConstants& k,
                      const RequestShape& q, const BatchCap& cap, double rate);

}  // namespace gpuplan::model
