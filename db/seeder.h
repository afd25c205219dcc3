// Seeds a new database with the embedded catalog (db/seed/): GPU specs, clouds, regions,
// GPU synonyms, exchange rates, AWS and GCP offers in SkyPilot format, Alibaba and
// Huawei offers in the flat CSV format, and the instance interconnect sheet. All of it
// in one transaction: a failed seed leaves the database empty.
#pragma once

#include <SQLiteCpp/Database.h>

#include <string>
#include <vector>

#include "db/catalog_batch.h"
#include "db/skypilot_parser.h"
#include "model/result.h"

namespace gpuplan::db {

struct SeedFileReport {
  std::string file;
  std::string cloud;
  ImportReport report;
  int instance_types = 0;
  int prices = 0;
};

struct SeedReport {
  bool seeded = false;  // false: the database was seeded before; nothing was done
  int gpus = 0;
  std::vector<SeedFileReport> files;
};

// The GCP host + GPU composition rules from the embedded seed.
Result<GcpAttachRules> LoadGcpAttachRules();

// Seeds `db` (already migrated) unless it has been seeded. A database seeded before gets only
// the seed's Kubernetes GPU label rows it lacks (gpu_synonyms of scope kKubernetesScope,
// added after its seed; rows an operator changed are kept). Fails with kInternal if the
// embedded seed is malformed (a bug: the seed tests catch it) and kUnavailable on a
// database error; either way nothing is written.
Result<SeedReport> SeedIfEmpty(SQLite::Database& db);

}  // namespace gpuplan::db
