// Reads the GPU memory a SkyPilot catalog row states in its GpuInfo column, whose shape
// differs by cloud (the catalog README of db/seed/skypilot_catalog.md lists them):
//  - AWS, GCP, OCI, Cudo, Nebius: Gpus[0].MemoryInfo.SizeInMiB is the memory of ONE GPU;
//  - Lambda: the same, but TotalGpuMemoryInMiB repeats the per-GPU figure;
//  - Vast: SizeInMiB is the total over all the row's GPUs;
//  - Shadeform: SizeInMiB holds GB, not MiB (48 for a 48 GB A6000);
//  - Azure: GpuInfo is just the GPU name (no memory).
// Pure functions; no I/O; thread-safe.
#pragma once

#include <optional>
#include <string_view>

namespace gpuplan::db {

// The first `'SizeInMiB': N` of `gpu_info` as written, or nullopt when there is none.
std::optional<double> GpuInfoSizeInMiB(std::string_view gpu_info);

// The memory of one GPU in GiB that `gpu_info` states, normalised, given the row's GPU count
// and the catalog GPU's memory `spec_gb` (GB as datasheets write it, i.e. GiB): a figure
// below 1024 is read as GB (Shadeform's unit); of "per GPU" and "total / count" the one
// nearer the spec is taken (Lambda vs Vast). nullopt when `gpu_info` states no memory.
std::optional<double> GpuInfoMemoryPerGpuGib(std::string_view gpu_info, int gpu_count,
                                             double spec_gb);

// True when `stated_gib` is within `tolerance` (relative) of `spec_gb`; datasheet GB and the
// MiB a driver reports differ by a few percent (an L4 reports 22.5 GiB of its 24 GB).
bool GpuMemoryAgrees(double stated_gib, double spec_gb, double tolerance = 0.10);

}  // namespace gpuplan::db
