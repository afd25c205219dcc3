#include "model/serving_load.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::model {

namespace {

constexpr double kZ95 = 1.645;  // one-sided 95 % of a normal

IterationTime Scaled(IterationTime t, double f) {
  t.weights_s *= f;
  t.kv_read_s *= f;
  t.compute_s *= f;
  t.sampling_s *= f;
  t.floors_s *= f;
  t.allreduce_s *= f;
  t.cpu_s *= f;
  t.total_s *= f;
  return t;
}

IterationTime Plus(IterationTime a, const IterationTime& b) {
  a.weights_s += b.weights_s;
  a.kv_read_s += b.kv_read_s;
  a.compute_s += b.compute_s;
  a.sampling_s += b.sampling_s;
  a.floors_s += b.floors_s;
  a.allreduce_s += b.allreduce_s;
  a.cpu_s += b.cpu_s;
  a.total_s += b.total_s;
  return a;
}

// A prefill-only iteration of `tokens` prompt tokens from `seqs` requests.
IterationTime PrefillIteration(const ReplicaShape& r, const EngineSettings& e,
                               const EngineConstants& k, const RequestShape& q, double tokens) {
  IterationLoad load;
  load.prefill_tokens = tokens;
  load.prefill_seqs = tokens / std::max(1.0, q.input_tokens);
  load.prefill_pairs = tokens * (q.cached_tokens + q.input_tokens / 2);
  return TimeIteration(r, load, e, k);
}

// The mean time per decode iteration with `b` decoding sequences, the prompt work of the
// requests that replace the finishing ones included (b / output_tokens per iteration):
// within the iteration (chunked prefill) or as prefill-only iterations between them.
IterationTime Cycle(const ReplicaShape& r, const EngineSettings& e, const EngineConstants& k,
                    const RequestShape& q, double b) {
  const double starts = b / std::max(1.0, q.output_tokens);
  IterationLoad load;
  load.decode_seqs = b;
  load.decode_context = b * (q.input_tokens + q.cached_tokens + q.output_tokens / 2);
  load.steps = e.num_scheduler_steps;
  // Without a separate API process the engine's loop also does each request's frontend work.
  const double frontend = e.frontend_multiprocessing ? 0 : starts * k.api_overhead_s;
  if (e.chunked_prefill && starts > 30) {
    // Many prompts per iteration: their count varies little; the mean iteration is exact enough.
    load.prefill_tokens = std::min(std::max(0.0, e.max_num_batched_tokens - b), starts * q.input_tokens);
    load.prefill_seqs = q.input_tokens > 0 ? load.prefill_tokens / q.input_tokens : 0;
    load.prefill_pairs = load.prefill_tokens * (q.cached_tokens + q.input_tokens / 2);
    IterationTime t = TimeIteration(r, load, e, k);
    t.cpu_s += frontend;
    t.total_s += frontend;
    return t;
  }
  if (e.chunked_prefill) {
    // An iteration carries k new prompts with k Poisson of mean `starts` (the mean of the
    // iteration times, not the time of the mean iteration: a prompt chunk can make an
    // otherwise bandwidth-bound step compute-bound).
    const double room = std::max(0.0, e.max_num_batched_tokens - b);
    IterationTime t;
    double p = std::exp(-starts), mass = 0;
    for (int n = 0; n <= 64 && mass < 1 - 1e-3; ++n) {
      if (n > 0) p *= starts / n;
      mass += p;
      IterationLoad with = load;
      with.prefill_tokens = std::min(room, n * q.input_tokens);
      with.prefill_seqs = q.input_tokens > 0 ? with.prefill_tokens / q.input_tokens : 0;
      with.prefill_pairs = with.prefill_tokens * (q.cached_tokens + q.input_tokens / 2);
      t = Plus(t, Scaled(TimeIteration(r, with, e, k), p));
    }
    t = Scaled(t, 1 / std::max(1e-12, mass));
    t.graphs = TimeIteration(r, load, e, k).graphs;
    t.cpu_s += frontend;
    t.total_s += frontend;
    return t;
  }
  IterationTime decode = TimeIteration(r, load, e, k);
  // Prompts arriving together share a prefill iteration (up to the token budget).
  const double per_prefill =
      std::min<double>(e.max_num_batched_tokens, q.input_tokens * std::max(1.0, starts));
  const double prefills = starts * q.input_tokens / std::max(1.0, per_prefill);
  IterationTime t = Plus(decode, Scaled(PrefillIteration(r, e, k, q, per_prefill), prefills));
  t.cpu_s += frontend;
  t.total_s += frontend;
  return t;
}

// Prefill service of one request once scheduled: its chunks (chunked) or its prefill
// iteration, with `b` sequences decoding beside it.
double PrefillService(const ReplicaShape& r, const EngineSettings& e, const EngineConstants& k,
                      const RequestShape& q, double b) {
  if (!e.chunked_prefill) return PrefillIteration(r, e, k, q, q.input_tokens).total_s;
  // Equal chunks within the room the decodes leave, each iteration timed with the b decodes
  // beside it; a chunk attends to the cached prefix and the chunks before it.
  const double room = std::max(1.0, e.max_num_batched_tokens - b);
  const double chunks = std::max(1.0, std::ceil(q.input_tokens / room));
  const double chunk = q.input_tokens / chunks;
  IterationLoad load;
  load.decode_seqs = b;
  load.decode_context = b * (q.input_tokens + q.cached_tokens + q.output_tokens / 2);
  load.prefill_tokens = chunk;
  auto at = [&](double index) {  // the chunk after `index` others
    load.prefill_pairs = chunk * (q.cached_tokens + index * chunk + chunk / 2);
    return TimeIteration(r, load, e, k).total_s;
  };
  if (chunks <= 16) {
    double total = 0;
    for (int i = 0; i < static_cast<int>(chunks); ++i) total += at(i);
    return total;
  }
  // Many chunks: their times change smoothly with the keys before them (Simpson's rule).
  return chunks * (at(0) + 4 * at((chunks - 1) / 2) + at(chunks - 1)) / 6;
}

// Erlang C: the probability an arrival waits, c servers at offered load a (< c).
double ErlangC(int c, double a) {
  if (c <= 0 || a <= 0) return 0;
  if (a >= c) return 1;
  if (a + 8 * std::sqrt(a) < c) return 0;  // a Poisson count 8 sigma below the servers: no wait
  double b = 1;
  for (int i = 1; i <= c; ++i) b = a * b / (i + a * b);
  return b / (1 - a / c * (1 - b));
}

}  // namespace

double EngineReserveBytesPerGpu(const ReplicaShape& r, const EngineSettings& engine,
                                const EngineConstants& k) {
  return engine.max_num_batched_tokens * static_cast<double>(r.hidden) *
             k.activation_reserve_bytes_per_token / r.tp +
         k.non_torch_bytes;
}

double KvCapacityTokens(const ReplicaShape& r, const GpuSpec& gpu, const EngineSettings& engine,
                        const EngineConstants& k) {
  const double per_gpu = gpu.memory_gb * 1e9 * engine.gpu_memory_utilization -
                         (r.dense_weight_bytes + r.expert_weight_bytes) / r.tp -
                         EngineReserveBytesPerGpu(r, engine, k);
  if (!(per_gpu > 0) || !(r.kv_bytes_per_token > 0)) return 0;
  return per_gpu * r.tp / r.kv_bytes_per_token;
}

BatchCap BatchLimit(const EngineSettings& engine, double kv_tokens, const RequestShape& q,
                    int client_concurrency) {
  BatchCap cap;
  cap.max_num_seqs = engine.max_num_seqs;
  const double context = q.input_tokens + q.cached_tokens + q.output_tokens;
  cap.kv_capacity = static_cast<int>(std::min(1e9, std::floor(kv_tokens / std::max(1.0, context))));
  // Each iteration carries one token per decode and, per finishing request, a new prompt:
  // b (1 + input / output) <= budget (chunked). Prefill-only iterations do not share it.
  cap.token_budget = engine.chunked_prefill
                         ? static_cast<int>(std::min(
                               1e9, std::floor(engine.max_num_batched_tokens /
                                               (1 + q.input_tokens / std::max(1.0, q.output_tokens)))))
                         : cap.max_num_seqs;
  cap.client_concurrency = client_concurrency;
  cap.effective = cap.max_num_seqs;
  cap.binding = "max_num_seqs";
  auto lower = [&](int v, const char* why) {
    if (v > 0 && v < cap.effective) {
      cap.effective = v;
      cap.binding = why;
    }
  };
  lower(std::max(1, cap.token_budget), "token_budget");
  lower(client_concurrency, "client_concurrency");
  if (cap.kv_capacity < cap.effective) {
    cap.effective = cap.kv_capacity;
    cap.binding = "kv_capacity";
  }
  return cap;
}

OperatingPoint ClosedLoop(const ReplicaShape& r, const EngineSettings& engine,
                          const EngineConstants& k, const RequestShape& q, int concurrency) {
  OperatingPoint p;
  const double b = std::max(1, concurrency);
  p.batch = b;
  p.iteration = Cycle(r, engine, k, q, b);
  const double t = p.iteration.total_s;
  const double prefill = PrefillService(r, engine, k, q, b);
  const double ttft = k.api_overhead_s + prefill;
  const double e2e = ttft + std::max(0.0, q.output_tokens - 1) * t;
  p.ttft_s = {ttft, ttft, ttft};
  p.tpot_s = {t, t, t};
  p.e2e_s = {e2e, e2e, e2e};
  // The engine holds a sequence from its prompt's first chunk to its last token; the API
  // frontend passes one request per api_overhead_s at most.
  p.requests_per_s = b / std::max(1e-12, e2e - k.api_overhead_s);
  p.tokens_per_s = p.requests_per_s * q.output_tokens;
  return p;
}

OperatingPoint AtRate(const ReplicaShape& r, const EngineSettings& engine, const EngineConstants& k,
                      const RequestShape& q, const BatchCap& cap, double rate) {
  OperatingPoint p;
  p.requests_per_s = rate;
  p.tokens_per_s = rate * q.output_tokens;
  const double c = std::max(1, cap.effective);
  auto excess = [&](double b) {
    return rate * q.output_tokens * Cycle(r, engine, k, q, b).total_s - b;
  };
  if (excess(c) > 0) {
    p.stable = false;
    p.batch = c;
    p.iteration = Cycle(r, engine, k, q, c);
    return p;
  }
  // b solves excess(b) = rate x out x t(b) - b = 0, with excess(0) > 0 >= excess(c):
  // regula falsi (Illinois) on the bracket, a few evaluations for a smooth t.
  double lo = 0, hi = c, f_lo = excess(1e-9), f_hi = excess(c);
  int side = 0;
  double b = hi;
  for (int i = 0; i < 60 && hi - lo > 1e-4 * std::max(1.0, lo); ++i) {
    b = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
    if (!(b > lo && b < hi)) b = (lo + hi) / 2;
    const double f = excess(b);
    if (f > 0) {
      lo = b;
      f_lo = f;
      if (side == -1) f_hi /= 2;
      side = -1;
    } else {
      hi = b;
      f_hi = f;
      if (side == 1) f_lo /= 2;
      side = 1;
    }
    if (std::abs(f) <= 1e-6 * std::max(1.0, b)) break;
  }
  p.batch = b;
  p.iteration = Cycle(r, engine, k, q, b);
  const double t = p.iteration.total_s;
  // The batch fluctuates as a Poisson count, amplified by its own feedback: a larger batch
  // slows every iteration, which keeps requests longer (elasticity e of the iteration time).
  // (A secant from an empty replica, not a local difference: the iteration time steps where
  // a batch leaves the captured graph sizes.)
  const double elasticity =
      std::clamp((t - Cycle(r, engine, k, q, 1e-3).total_s) / t, 0.0, 0.8);
  const double b95 = std::min(c, b + kZ95 * std::sqrt(b) / (1 - elasticity));
  const double t95 = Cycle(r, engine, k, q, std::max(b, b95)).total_s;
  // Waiting for a sequence slot (M/M/c, service = a request's time in the engine).
  const double service = std::max(1e-9, q.output_tokens * t);
  const double wait_p = ErlangC(static_cast<int>(c), b);
  auto slot_wait = [&](double tail) {
    if (wait_p <= tail) return 0.0;
    return service / (c - b) * std::log(wait_p / tail);
  };
  // Waiting for the token budget (M/D/1 on the prompt work).
  const double prefill = PrefillService(r, engine, k, q, b);
  double rho = engine.chunked_prefill
                   ? rate * q.input_tokens * t / std::max(1.0, engine.max_num_batched_tokens - b)
                   : rate * prefill;
  if (rho >= 1) {
    p.stable = false;
    rho = 0.999;
  }
  const double queue = rho * prefill / (2 * (1 - rho));
  p.ttft_s.mean = k.api_overhead_s + t / 2 + prefill + queue + slot_wait(0.5) * 1.2;
  p.ttft_s.p50 = k.api_overhead_s + t / 2 + prefill + 0.7 * queue + slot_wait(0.5);
  const double prefill95 = PrefillService(r, engine, k, q, b95);
  p.ttft_s.p95 = k.api_overhead_s + t95 + prefill95 + 3 * queue + slot_wait(0.05);
  p.tpot_s = {t, t, t95};
  const double decodes = std::max(0.0, q.output_tokens - 1);
  p.e2e_s.mean = p.ttft_s.mean + decodes * t;
  p.e2e_s.p50 = p.ttft_s.p50 + decodes * t;
  p.e2e_s.p95 = p.ttft_s.p95 + decodes * t95;
  return p;
}

}  // namespace gpuplan::model
