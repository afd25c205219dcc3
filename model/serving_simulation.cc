#include "model/serving_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <vector>

namespace gpuplan::model {

namespace {

struct Sequence {
  double arrival = 0;
  double ready = 0;      // through the API frontend: may join the scheduler's queue
  int prompt = 0;        // tokens to prefill (grows by the generated ones after a preemption)
  int prompt_done = 0;   // of them, computed (or found in the prefix cache)
  int output = 0;        // tokens to generate in all
  int generated = 0;
  double first_token = -1;
  double last_token = 0;
  bool counted = true;   // in the latency statistics (not warm-up)
};

// Uniform in (0, 1) from the engine-independent mt19937 stream (std:: distributions differ
// between standard libraries; this does not).
double Uniform(std::mt19937& g) { return (static_cast<double>(g()) + 0.5) / 4294967296.0; }

// `n` lengths of mean `mean` (at least `floor`): all equal when cv is 0, else log-normal
// draws rescaled so their mean is exact.
std::vector<int> Lengths(int n, double mean, double cv, int floor, std::mt19937& g) {
  std::vector<double> raw(n, mean);
  if (cv > 0) {
    double sigma = std::sqrt(std::log(1 + cv * cv));
    double sum = 0;
    for (double& x : raw) {
      double z = std::sqrt(-2 * std::log(Uniform(g))) * std::cos(2 * M_PI * Uniform(g));
      x = std::exp(sigma * z);
      sum += x;
    }
    for (double& x : raw) x *= mean * n / sum;
  }
  std::vector<int> out(n);
  for (int i = 0; i < n; ++i) out[i] = std::max(floor, static_cast<int>(std::lround(raw[i])));
  return out;
}

Percentiles Summarize(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / v.size();
  auto at = [&](double q) {
    double pos = q * (v.size() - 1);
    size_t i = static_cast<size_t>(pos);
    double f = pos - i;
    return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
  };
  p.p50 = at(0.5);
  p.p95 = at(0.95);
  return p;
}

}  // namespace

SimulationResult SimulateServing(const ReplicaShape& r, const EngineSettings& engine,
                                 const EngineConstants& k, double kv_capacity_tokens,
                                 const SimulatedLoad& load) {
  SimulationResult out;
  const int n = std::clamp(load.requests, 0, kMaxSimulatedRequests);
  if (n == 0 || !(kv_capacity_tokens >= 1)) return out;
  std::mt19937 gen(load.seed);
  std::vector<int> inputs = Lengths(n, load.mean_input, load.length_cv, 1, gen);
  std::vector<int> outputs = Lengths(n, load.mean_output, load.length_cv, 1, gen);
  if (load.max_output > load.mean_output) {
    const double lo = std::max(1.0, 2 * load.mean_output - load.max_output);
    for (int i = 0; i < n; ++i) {
      // Evenly spread over [lo, max], in a seeded order.
      double u = n > 1 ? static_cast<double>((i * 7919L) % n) / (n - 1) : 1.0;
      outputs[i] = static_cast<int>(std::lround(lo + u * (load.max_output - lo)));
    }
  }
  std::vector<Sequence> seqs(n);
  const int warmup = static_cast<int>(load.warmup_share * n);
  double t_arrival = 0;
  const bool closed = load.max_concurrency > 0;
  for (int i = 0; i < n; ++i) {
    seqs[i].prompt = inputs[i];
    seqs[i].output = outputs[i];
    seqs[i].counted = i >= warmup;
    if (!closed && load.rate > 0) {
      t_arrival += load.evenly_spaced ? 1 / load.rate : -std::log(Uniform(gen)) / load.rate;
      seqs[i].arrival = t_arrival;
    }
    // (Poisson gaps, rescaled below so the stream's mean rate is exactly `rate`.)
    // Cached prefix tokens are not computed (the last prompt token always is).
    seqs[i].prompt_done = std::min(seqs[i].prompt - 1,
                                   static_cast<int>(engine.prefix_caching ? load.cached_prompt_tokens : 0));
  }
  if (!closed && load.rate > 0 && t_arrival > 0) {
    const double scale = n / load.rate / t_arrival;
    for (Sequence& s : seqs) s.arrival *= scale;
  }
  // The API frontend (HTTP, tokenisation, hand-off to the engine).
  auto through_frontend = [&](Sequence& s) {
    if (!engine.frontend_multiprocessing) {  // done by the engine's own loop, below
      s.ready = s.arrival;
      return;
    }
    // A separate frontend process: its work on a request is latency, not a queue (it is
    // asynchronous and far from saturated at the rates one replica serves).
    s.ready = s.arrival + k.api_overhead_s;
  };
  // Requests released so far; with clients, the first max_concurrency at time 0.
  int released = closed ? std::min(n, load.max_concurrency) : n;
  for (int i = 0; i < released; ++i) through_frontend(seqs[i]);
  int next_arrival = 0;  // index of the next request to join the waiting queue
  std::deque<int> waiting;
  std::vector<int> running;  // admitted, in admission order
  double kv_used = 0;
  double now = 0;
  int finished = 0;
  long iterations = 0;
  int multi_step_left = 0;
  double batch_time = 0, decode_time = 0;
  std::vector<double> gaps;  // inter-token gaps of counted requests, sampled
  const double cap = kv_capacity_tokens;
  const int budget = engine.max_num_batched_tokens;

  auto kv_of = [&](const Sequence& s) { return static_cast<double>(s.prompt_done + s.generated); };
  auto finish = [&] {
    ++finished;
    if (closed && released < n) {  // the client sends its next request
      seqs[released].arrival = now;
      through_frontend(seqs[released]);
      ++released;
    }
  };

  while (finished < n) {
    if (++iterations > kMaxSimulatedIterations) {
      out.truncated = true;
      break;
    }
    while (next_arrival < released && seqs[next_arrival].ready <= now) {
      waiting.push_back(next_arrival++);
      // One process serves HTTP and the engine: the request's frontend work stalls it.
      if (!engine.frontend_multiprocessing) now += k.api_overhead_s;
    }
    if (running.empty() && waiting.empty()) {
      if (next_arrival >= released) break;  // nothing left to arrive
      now = std::max(now, seqs[next_arrival].ready);
      continue;
    }
    IterationLoad it;
    std::vector<std::pair<int, int>> chunks;  // (sequence, prompt tokens computed now)
    std::vector<int> decoding;
    auto admit = [&](int tokens_left, bool whole_prompt) {
      while (!waiting.empty() && static_cast<int>(running.size()) < engine.max_num_seqs &&
             tokens_left > 0) {
        Sequence& s = seqs[waiting.front()];
        int need = s.prompt - s.prompt_done;
        if (whole_prompt && need > tokens_left) break;
        // Blocks for the whole prompt, above a 1 % watermark (vLLM's block manager).
        if (kv_used + s.prompt + 1 > 0.99 * cap) break;
        int chunk = std::min(need, tokens_left);
        running.push_back(waiting.front());
        waiting.pop_front();
        kv_used += s.prompt_done;  // cached prefix blocks are held too
        chunks.push_back({running.back(), chunk});
        tokens_left -= chunk;
      }
      return tokens_left;
    };
    const bool chunked = engine.chunked_prefill;
    bool prefill_only = false;
    if (!chunked && multi_step_left == 0 && !waiting.empty()) {
      // v0: a prefill-only iteration whenever a waiting prompt can be admitted.
      admit(budget, true);
      prefill_only = !chunks.empty();
    }
    if (!prefill_only) {
      for (int id : running) {
        const Sequence& s = seqs[id];
        if (s.prompt_done >= s.prompt) decoding.push_back(id);
      }
      // No room for one more token each: preempt the newest (recomputed later).
      bool preempted_now = false;
      while (!decoding.empty() && kv_used + decoding.size() > cap) {
        int victim = running.back();
        running.pop_back();
        Sequence& v = seqs[victim];
        kv_used -= kv_of(v);
        v.prompt += v.generated;
        v.output -= v.generated;
        v.generated = 0;
        v.prompt_done = 0;
        waiting.push_front(victim);
        decoding.erase(std::remove(decoding.begin(), decoding.end(), victim), decoding.end());
        ++out.preemptions;
        preempted_now = true;
      }
      if (chunked) {
        int left = budget - static_cast<int>(decoding.size());
        for (int id : running) {  // partial prefills continue first
          Sequence& s = seqs[id];
          if (s.prompt_done < s.prompt && left > 0) {
            int c = std::min(left, s.prompt - s.prompt_done);
            chunks.push_back({id, c});
            left -= c;
          }
        }
        // After a preemption the scheduler admits nothing new this iteration.
        if (multi_step_left == 0 && !preempted_now) admit(left, false);
      }
      if (multi_step_left == 0 && engine.num_scheduler_steps > 1 && chunks.empty()) {
        multi_step_left = engine.num_scheduler_steps;
      }
    }
    if (decoding.empty() && chunks.empty()) {
      // Nothing can run (KV full with waiting prompts only): wait for the next arrival.
      if (next_arrival < released) {
        now = std::max(now, seqs[next_arrival].ready);
        continue;
      }
      out.truncated = true;  // a prompt larger than the cache: cannot be served
      break;
    }
    it.decode_seqs = static_cast<int>(decoding.size());
    for (int id : decoding) it.decode_context += kv_of(seqs[id]);
    for (auto [id, c] : chunks) {
      const Sequence& s = seqs[id];
      it.prefill_tokens += c;
      it.prefill_pairs += c * (s.prompt_done + c / 2.0);
      if (s.prompt_done + c >= s.prompt) ++it.prefill_seqs;
    }
    it.steps = engine.num_scheduler_steps;
    const double dt = TimeIteration(r, it, engine, k).total_s;
    now += dt;
    if (multi_step_left > 0) --multi_step_left;
    if (!decoding.empty()) {
      batch_time += decoding.size() * dt;
      decode_time += dt;
    }
    for (auto [id, c] : chunks) {
      Sequence& s = seqs[id];
      s.prompt_done += c;
      kv_used += c;
      if (s.prompt_done >= s.prompt) {  // the last chunk samples the first token
        if (s.first_token < 0) s.first_token = now;
        s.generated = 1;
        kv_used += 1;
        s.last_token = now;
      }
    }
    for (int id : decoding) {
      Sequence& s = seqs[id];
      if (s.counted && gaps.size() < 200000) gaps.push_back(now - s.last_token);
      ++s.generated;
      kv_used += 1;
      s.last_token = now;
    }
    // Completions (a prompt's first token may be its only one).
    for (size_t i = 0; i < running.size();) {
      Sequence& s = seqs[running[i]];
      if (s.prompt_done >= s.prompt && s.generated >= s.output) {
        kv_used -= kv_of(s);
        running.erase(running.begin() + i);
        finish();
      } else {
        ++i;
      }
    }
  }
  std::vector<double> ttft, tpot, e2e;
  double first = seqs.empty() ? 0 : seqs[0].arrival;
  for (const Sequence& s : seqs) {
    if (s.first_token < 0 || !s.counted) continue;
    ttft.push_back(s.first_token - s.arrival);
    e2e.push_back(s.last_token - s.arrival);
    if (s.generated > 1) tpot.push_back((s.last_token - s.first_token) / (s.generated - 1));
  }
  // Every request's whole output (a preempted one's earlier tokens included).
  for (int i = 0; i < n; ++i) out.output_tokens += outputs[i];
  out.duration_s = now - first;
  if (out.duration_s > 0) {
    out.requests_per_s = finished / out.duration_s;
    out.output_tokens_per_s = out.output_tokens / out.duration_s;
  }
  out.ttft_s = Summarize(std::move(ttft));
  out.tpot_s = Summarize(std::move(tpot));
  out.e2e_s = Summarize(std::move(e2e));
  out.itl_median_s = Summarize(std::move(gaps)).p50;
  if (warmup > 0 && warmup < n && now > seqs[warmup].arrival) {
    // A stream's rate: the requests after the warm-up over the time from the first of them to
    // the last one's arrival (its completion less a mean request time: the drain of the
    // last requests is not part of the stream).
    const double span = std::max(0.5 * (now - seqs[warmup].arrival),
                                 now - seqs[warmup].arrival - out.e2e_s.mean);
    double tokens = 0;
    for (int i = warmup; i < n; ++i) tokens += outputs[i];
    out.requests_per_s = (n - warmup) / span;
    out.output_tokens_per_s = tokens / span;
  }
  out.mean_batch = decode_time > 0 ? batch_time / decode_time : 0;
  return out;
}

}  // namespace gpuplan::model
