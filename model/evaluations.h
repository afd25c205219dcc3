// How many training and serving estimates this process has made (for /metrics). The one
// piece of process state in model/: a relaxed atomic counter, incremented by
// EstimateTraining and EstimateServing.
#pragma once

namespace gpuplan::model {

struct EvaluationCounts {
  unsigned long long training = 0, serving = 0;
};
EvaluationCounts Evaluations();

namespace internal {
void CountTrainingEvaluation();
void CountServingEvaluation();
}  // namespace internal

}  // namespace gpuplan::model
