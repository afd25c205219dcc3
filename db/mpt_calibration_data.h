// Reads llm_training_mpt.csv (MosaicML llm-foundry's published MPT pre-training throughputs,
// PyTorch FSDP on A100 and H100, BF16 and FP8) into calibration points: each row's MPT size
// mapped to its preset (mpt-125m ... mpt-70b), its GPU and node count to a cluster of 8-GPU
// NVSwitch nodes, and its notes (global batch, activation checkpointing, sharding, FSDP
// mixed-precision mode) to the training job. Pure parsing; errors name the missing column.
#pragma once

#include "db/calibration_data.h"

namespace gpuplan::db {

// Network bandwidth per node assumed where the source does not state the inter-node fabric
// (its H100 tables): the HGX H100 reference of 8 x 400 Gbit/s, Gbit/s.
inline constexpr double kMptAssumedH100NetworkGbps = 3200;

// Rows of `table` (llm_training_mpt.csv's columns) as calibration points; `measured` is the
// run's total tokens/s (the file's per-GPU figure times the GPUs). Rows that cannot be mapped
// are in `skipped` with the reason.
Result<CalibrationData> LoadMptCalibrationData(const CsvTable& table, const GpuResolver& resolver);

}  // namespace gpuplan::db
