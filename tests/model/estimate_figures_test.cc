// EstimateTrainingFigures: the figures of EstimateTraining, exactly, without its words
// (what a recommendation's options are ranked and shown by), for every preset on nodes
// that fit it and nodes that do not, one and several nodes, 16-bit, FP8 and precision auto.
// EstimateServingFigures: the same for EstimateServing, over presets, GPUs, loads (one
// refused), latency targets met and missed, fixed and searched tensor parallelism, and
// precision auto.
#include <gtest/gtest.h>

#include "model/inference.h"
#include "model/training.h"
#include "model/workload_presets.h"
#include "tests/model/model_fixtures.h"

namespace gpuplan::model {
namespace {

using namespace testing;

TEST(EstimateFiguresTest, AreTheFiguresOfTheFullEstimateWithoutItsWords) {
  int compared = 0;
  for (const Workload& w : WorkloadPresets()) {
    for (const GpuSpec& gpu : {H100(), A100_80(), T4()}) {
      for (int nodes : {1, 4}) {
        for (bool automatic : {false, true}) {
          TrainingJob job;
          job.global_batch = 256;
          job.samples = 1e6;
          job.epochs = 1;
          job.precision = gpu.bf16_tflops > 0 ? Precision::kBf16 : Precision::kFp16;
          job.precision_auto = automatic;
          Cluster cluster = Node(gpu, 8, nodes);
          cluster.node.vcpus = 96;  // image workloads read the input pipeline
          auto full = EstimateTraining(w, job, cluster, DefaultConstants(), false);
          auto figures = EstimateTrainingFigures(w, job, cluster);
          ASSERT_EQ(full.ok(), figures.ok()) << w.id << " on " << gpu.id;
          if (!full.ok()) {
            EXPECT_EQ(full.error().message, figures.error().message);
            EXPECT_EQ(full.error().refusal, figures.error().refusal);
            continue;
          }
          const std::string where = w.id + " on " + std::to_string(nodes) + "x8 " + gpu.id;
          EXPECT_EQ(full->precision, figures->precision) << where;
          EXPECT_EQ(full->layout.tensor, figures->layout.tensor) << where;
          EXPECT_EQ(full->layout.pipeline, figures->layout.pipeline) << where;
          EXPECT_EQ(full->layout.data, figures->layout.data) << where;
          EXPECT_EQ(full->layout.zero_stage, figures->layout.zero_stage) << where;
          EXPECT_EQ(full->layout.context, figures->layout.context) << where;
          EXPECT_EQ(full->layout.virtual_stages, figures->layout.virtual_stages) << where;
          EXPECT_EQ(full->layout.sequence_parallel, figures->layout.sequence_parallel) << where;
          EXPECT_EQ(full->micro_batch, figures->micro_batch) << where;
          EXPECT_EQ(full->grad_accumulation_steps, figures->grad_accumulation_steps) << where;
          EXPECT_EQ(full->memory.verdict, figures->memory.verdict) << where;
          EXPECT_EQ(full->memory.total_gb, figures->memory.total_gb) << where;
          EXPECT_EQ(full->step.step_time_s, figures->step.step_time_s) << where;
          EXPECT_EQ(full->step.bottleneck, figures->step.bottleneck) << where;
          EXPECT_EQ(full->samples_per_s, figures->samples_per_s) << where;
          EXPECT_EQ(full->tokens_per_s, figures->tokens_per_s) << where;
          EXPECT_EQ(full->mfu, figures->mfu) << where;
          EXPECT_EQ(full->total_hours, figures->total_hours) << where;
          EXPECT_EQ(full->p10_hours, figures->p10_hours) << where;
          EXPECT_EQ(full->p90_hours, figures->p90_hours) << where;
          EXPECT_EQ(full->steps, figures->steps) << where;
          EXPECT_EQ(full->epochs, figures->epochs) << where;
          EXPECT_EQ(full->total_samples, figures->total_samples) << where;
          EXPECT_EQ(full->total_tokens, figures->total_tokens) << where;
          EXPECT_EQ(full->train_flops, figures->train_flops) << where;
          EXPECT_FALSE(full->assumptions.empty()) << where;
          EXPECT_TRUE(figures->assumptions.empty()) << where;
          EXPECT_TRUE(figures->warnings.empty()) << where;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
}

// Precision auto on an FP8 GPU answers the faster of the FP8 and the 16-bit estimate that fit
// (FP8 on a tie), each as asked on its own: the 16-bit search held to the FP8 step finds the
// 16-bit layout the unheld search finds whenever that one is faster.
TEST(EstimateFiguresTest, PrecisionAutoIsTheFasterOfFp8And16Bit) {
  int fp8 = 0, sixteen = 0;
  for (const Workload& w : WorkloadPresets()) {
    for (int gpus_per_node : {1, 8}) {
      for (int nodes : {1, 2, 4}) {
        for (long long batch : {8LL, 256LL, 4096LL}) {
          const Cluster cluster = Node(H100(), gpus_per_node, nodes);
          TrainingJob job;
          job.global_batch = batch;
          job.samples = 1e6;
          job.epochs = 1;
          job.framework = Framework::kAuto;  // the API's default
          TrainingJob automatic = job;
          automatic.precision_auto = true;
          TrainingJob on_fp8 = job;
          on_fp8.precision = Precision::kFp8;
          TrainingJob on_16 = job;
          on_16.precision = AutoPrecision(H100());
          auto a = EstimateTrainingFigures(w, automatic, cluster);
          auto f = EstimateTrainingFigures(w, on_fp8, cluster);
          auto b = EstimateTrainingFigures(w, on_16, cluster);
          const std::string where = w.id + " on " + std::to_string(nodes) + "x" +
                                    std::to_string(gpus_per_node) + " H100, batch " +
                                    std::to_string(batch);
          if (!f.ok() || !a.ok()) {
            continue;  // FP8 not offered for this workload (or the layout refused)
          }
          ASSERT_TRUE(b.ok()) << where;
          const bool b_wins = b->memory.verdict != FitVerdict::kDoesNotFit &&
                              (f->memory.verdict == FitVerdict::kDoesNotFit ||
                               b->step.step_time_s < f->step.step_time_s);
          const TrainingEstimate& want = b_wins ? *b : *f;
          EXPECT_EQ(a->precision, want.precision) << where;
          EXPECT_EQ(a->step.step_time_s, want.step.step_time_s) << where;
          EXPECT_EQ(a->layout.tensor, want.layout.tensor) << where;
          EXPECT_EQ(a->layout.pipeline, want.layout.pipeline) << where;
          EXPECT_EQ(a->layout.zero_stage, want.layout.zero_stage) << where;
          EXPECT_EQ(a->micro_batch, want.micro_batch) << where;
          EXPECT_EQ(a->memory.total_gb, want.memory.total_gb) << where;
          ++(b_wins ? sixteen : fp8);
        }
      }
    }
  }
  EXPECT_GT(fp8, 20);
  EXPECT_GT(sixteen, 20);  // both outcomes are met
}

// Every figure of two serving points is the same.
void ExpectSamePoint(const ServingPoint& a, const ServingPoint& b, const std::string& where) {
  EXPECT_EQ(a.batch, b.batch) << where;
  EXPECT_EQ(a.ttft_s, b.ttft_s) << where;
  EXPECT_EQ(a.tpot_s, b.tpot_s) << where;
  EXPECT_EQ(a.latency_s, b.latency_s) << where;
  EXPECT_EQ(a.requests_per_s, b.requests_per_s) << where;
  EXPECT_EQ(a.tokens_per_s, b.tokens_per_s) << where;
}

// Every figure of two operating points (a decoder's load) is the same.
void ExpectSameOperatingPoint(const OperatingPoint& a, const OperatingPoint& b,
                              const std::string& where) {
  EXPECT_EQ(a.requests_per_s, b.requests_per_s) << where;
  EXPECT_EQ(a.tokens_per_s, b.tokens_per_s) << where;
  EXPECT_EQ(a.batch, b.batch) << where;
  EXPECT_EQ(a.stable, b.stable) << where;
  EXPECT_EQ(a.iteration.total_s, b.iteration.total_s) << where;
  EXPECT_EQ(a.iteration.graphs, b.iteration.graphs) << where;
  for (auto [x, y] : {std::pair{&a.ttft_s, &b.ttft_s}, std::pair{&a.tpot_s, &b.tpot_s},
                      std::pair{&a.e2e_s, &b.e2e_s}}) {
    EXPECT_EQ(x->mean, y->mean) << where;
    EXPECT_EQ(x->p50, y->p50) << where;
    EXPECT_EQ(x->p95, y->p95) << where;
  }
}

TEST(EstimateFiguresTest, ServingFiguresAreTheFullEstimatesWithoutItsWords) {
  int compared = 0, slo_missed = 0, not_fitting = 0, searched = 0, errors = 0;
  for (const Workload& w : WorkloadPresets()) {
    for (const GpuSpec& gpu : {H100(), A100_80(), T4()}) {
      for (int gpus : {1, 8}) {
        // 0: the tensor-parallel degree searched (1, 2, 4, 8 on 8 GPUs), else fixed at 2.
        for (int tp : {0, 2}) {
          if (tp == 2 && (gpus == 1 || !IsDecoderOnly(w.family) || w.heads % 2 != 0)) continue;
          // 40 req/s, and a load past the most GPUs one plan may use (an error).
          for (double rps : {40.0, 1e7}) {
            for (double slo_s : {0.0, 2.0, 0.05}) {
              for (bool automatic : {false, true}) {
                ServingRequest r = Chat(rps, slo_s);
                r.precision_auto = automatic;
                r.tensor_parallel = tp;
                const NodeSpec node = Node(gpu, gpus).node;
                auto full = EstimateServing(w, node, r);
                auto figures = EstimateServingFigures(w, node, r);
                const std::string where =
                    w.id + " on " + std::to_string(gpus) + "x " + gpu.id + ", tp " +
                    std::to_string(tp) + ", " + std::to_string(rps) + " req/s, slo " +
                    std::to_string(slo_s) + (automatic ? ", precision auto" : "");
                ASSERT_EQ(full.ok(), figures.ok()) << where;
                if (!full.ok()) {
                  EXPECT_EQ(full.error().message, figures.error().message) << where;
                  EXPECT_EQ(full.error().refusal, figures.error().refusal) << where;
                  ++errors;
                  continue;
                }
                EXPECT_EQ(full->precision, figures->precision) << where;
                EXPECT_EQ(full->verdict, figures->verdict) << where;
                EXPECT_EQ(full->slo_met, figures->slo_met) << where;
                EXPECT_EQ(full->replicas, figures->replicas) << where;
                EXPECT_EQ(full->total_gpus, figures->total_gpus) << where;
                EXPECT_EQ(full->gpus_per_replica, figures->gpus_per_replica) << where;
                EXPECT_EQ(full->max_batch, figures->max_batch) << where;
                EXPECT_EQ(full->batch_cap.effective, figures->batch_cap.effective) << where;
                EXPECT_EQ(full->batch_cap.max_num_seqs, figures->batch_cap.max_num_seqs) << where;
                EXPECT_EQ(full->batch_cap.kv_capacity, figures->batch_cap.kv_capacity) << where;
                EXPECT_EQ(full->batch_cap.token_budget, figures->batch_cap.token_budget) << where;
                EXPECT_EQ(std::string(full->batch_cap.binding),
                          std::string(figures->batch_cap.binding))
                    << where;
                EXPECT_EQ(full->engine.name, figures->engine.name) << where;
                EXPECT_EQ(full->engine.version, figures->engine.version) << where;
                EXPECT_EQ(full->engine.max_num_seqs, figures->engine.max_num_seqs) << where;
                EXPECT_EQ(full->engine.max_num_batched_tokens,
                          figures->engine.max_num_batched_tokens)
                    << where;
                EXPECT_EQ(full->engine.gpu_memory_utilization,
                          figures->engine.gpu_memory_utilization)
                    << where;
                EXPECT_EQ(full->engine.max_model_len, figures->engine.max_model_len) << where;
                EXPECT_EQ(full->weights_gb, figures->weights_gb) << where;
                EXPECT_EQ(full->kv_cache_bytes_per_token, figures->kv_cache_bytes_per_token)
                    << where;
                EXPECT_EQ(full->kv_cache_gb, figures->kv_cache_gb) << where;
                EXPECT_EQ(full->memory_total_gb, figures->memory_total_gb) << where;
                EXPECT_EQ(full->memory_capacity_gb, figures->memory_capacity_gb) << where;
                ExpectSameOperatingPoint(full->saturation, figures->saturation, where);
                ExpectSameOperatingPoint(full->kv_limit, figures->kv_limit, where);
                ExpectSameOperatingPoint(full->planned, figures->planned, where);
                EXPECT_EQ(full->planned_requests_per_s_per_replica,
                          figures->planned_requests_per_s_per_replica)
                    << where;
                EXPECT_EQ(full->capacity_requests_per_s_per_replica,
                          figures->capacity_requests_per_s_per_replica)
                    << where;
                ExpectSamePoint(full->chosen, figures->chosen, where);
                ASSERT_EQ(full->curve.size(), figures->curve.size()) << where;
                for (size_t i = 0; i < full->curve.size(); ++i) {
                  ExpectSamePoint(full->curve[i], figures->curve[i], where);
                }
                EXPECT_FALSE(full->assumptions.empty()) << where;
                EXPECT_TRUE(figures->assumptions.empty()) << where;
                EXPECT_TRUE(figures->warnings.empty()) << where;
                EXPECT_TRUE(figures->replica_rule.empty()) << where;
                EXPECT_TRUE(figures->slo_detail.empty()) << where;
                if (!full->slo_met && full->verdict != FitVerdict::kDoesNotFit) ++slo_missed;
                if (full->verdict == FitVerdict::kDoesNotFit) ++not_fitting;
                if (tp == 0 && gpus == 8 && IsDecoderOnly(w.family)) ++searched;
                ++compared;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(slo_missed, 5);   // targets missed are compared
  EXPECT_GT(not_fitting, 2);  // and models that do not fit
  EXPECT_GT(searched, 20);    // and tensor-parallel degrees searched
  EXPECT_GT(errors, 5);       // and refusals (over the most GPUs of one plan)
}

}  // namespace
}  // namespace gpuplan::model
