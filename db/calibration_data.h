// Reads calibration.csv (published training throughputs, NVIDIA DeepLearningExamples)
// into calibration points: each row's model mapped to a workload preset, its GPU to a
// GPU spec, its precision and batch to a training job.
#pragma once

#include <vector>

#include "db/catalog_batch.h"
#include "db/csv.h"
#include "db/gpu_resolver.h"
#include "model/calibration.h"
#include "model/result.h"

namespace gpuplan::db {

struct CalibrationData {
  std::vector<model::CalibrationPoint> points;
  std::vector<RowIssue> skipped;  // rows that could not be mapped, with the reason
};

// `resolver` must know the GPUs of gpus.csv. Row GPU ids are resolved through it
// ("V100-32GB-SXM3", the DGX-2 part, has the SXM2 part's peak rates and is mapped to it).
Result<CalibrationData> LoadCalibrationData(const CsvTable& table, const GpuResolver& resolver);

// The GPUs of the embedded gpus.csv with the seed's synonyms (gpu_synonyms.csv).
Result<GpuResolver> EmbeddedGpuResolver();

// The embedded calibration.csv, calibration_more.csv and llm_training_mpt.csv (MPT rows through
// LoadMptCalibrationData), with gpus.csv, parsed.
Result<CalibrationData> LoadEmbeddedCalibrationData();

}  // namespace gpuplan::db
