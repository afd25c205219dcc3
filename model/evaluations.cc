#include "model/evaluations.h"

#include <atomic>

namespace gpuplan::model {

namespace {
std::atomic<unsigned long long> training_count{0}, serving_count{0};
}  // namespace

EvaluationCounts Evaluations() {
  return {training_count.load(std::memory_order_relaxed), serving_count.load(std::memory_order_relaxed)};
}

namespace internal {
void CountTrainingEvaluation() { training_count.fetch_add(1, std::memory_order_relaxed); }
void CountServingEvaluation() { serving_count.fetch_add(1, std::memory_order_relaxed); }
}  // namespace internal

}  // namespace gpuplan::model
