// `gpuplan calibrate`: fits the model's constants on the embedded calibration.csv and
// prints the error per family, per GPU, per model and overall.
#pragma once

#include <iosfwd>

namespace gpuplan::server {

struct CalibrateOptions {
  bool fit = true;             // false: score the shipped constants only
  bool cross_validate = false; // leave-one-model-out error as well
  bool rows = false;           // print every row's prediction
};

// Returns the process exit code.
int RunCalibrate(const CalibrateOptions& options, std::ostream& out);

}  // namespace gpuplan::server
