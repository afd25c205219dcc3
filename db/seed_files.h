// The seed catalog files of db/seed/*.csv, embedded in the binary at build time
// (scripts/embed_seed.cmake), so a new database is seeded without the source tree.
#pragma once

#include <string_view>
#include <vector>

namespace gpuplan::db {

struct SeedFile {
  std::string_view name;  // file name, e.g. "gpus.csv"
  std::string_view content;
};

const std::vector<SeedFile>& SeedFiles();

}  // namespace gpuplan::db
