// `gpuplan calibrate`: fits the model's constants on the embedded calibration.csv and
// prints the error per family, per GPU, per model and overall.
#pragma once

#include <iosfwd>

namespace gpuplan::server {

struct CalibrateOptions {
  bool fit = true;             // false: score the shipped constants only
  bool cross_validate = false; // leave-one-model-out error as well
  bool rows = false;           // print every row's prediction
  bool serving = false;        // the serving engines' constants (serving_calibration.csv)
};

// Returns the process exit code.
int RunCalibrate(const CalibrateOptions& options, std::ostream& out);

// `gpuplan calibrate --serving`: per engine version family, the error of the shipped (or
// fitted) iteration constants on serving_calibration.csv by model and GPU, the constants with
// priors and bounds, and with --cross-validate the leave-one-model-out and leave-one-GPU-out
// medians. Returns the process exit code.
int RunServingCalibrate(const CalibrateOptions& options, std::ostream& out);

}  // namespace gpuplan::server
