// Seeds a new database with the embedded catalog (db/seed/): GPU specs, clouds, regions,
// GPU synonyms, exchange rates, the SkyPilot-format catalogs of every region of AWS, GCP,
// Azure, OCI, Lambda, Nebius, Vast, Cudo, Shadeform and Fluidstack (seed_sources.csv, with
// the importer's data-error rules and the published sizes of instance_gpus.csv), Alibaba
// and Huawei offers in the flat CSV format, the instance interconnect sheet and the AWS Spot
// Instance Advisor interruption bands (db/spot_bands.h). All of it in one transaction: a
// failed seed leaves the database empty. Each file's skipped and corrected rows are counted
// by reason in its SeedFileReport (the server logs them).
#pragma once

#include <string>
#include <vector>

#include "db/catalog_batch.h"
#include "db/skypilot_parser.h"
#include "db/sql.h"
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
  bool seeded = false;  // false: the database was seeded before (see kubernetes_labels_added)
  // A catalog seeded by a build before the Kubernetes GPU label rows: how many were added.
  int kubernetes_labels_added = 0;
  // A catalog seeded by a build before the fp4_tflops column: how many seed GPUs got their rate.
  int fp4_rates_added = 0;
  int gpus = 0;
  std::vector<SeedFileReport> files;
};

// The GCP host + GPU composition rules from the embedded seed.
Result<GcpAttachRules> LoadGcpAttachRules();

// The published instance sizes of the embedded seed (db/seed/instance_gpus.csv): the GPU
// and count a cloud's own size table gives, which correct a catalog row that says otherwise.
Result<PublishedSizes> LoadPublishedSizes();

// Seeds `db` (already migrated) unless it has been seeded. A database seeded by a build
// before the Kubernetes GPU label rows gets them once (gpu_synonyms of scope
// kKubernetesScope, for the GPUs that have none there; a row an operator changed is kept,
// one deleted later stays deleted), and one seeded before the spot interruption bands gets
// them (the seed's regions only; bands imported since are replaced there), and one seeded
// before the fp4_tflops column gets the seed's FP4 rates where a GPU has none. Fails with kInternal
// if the embedded seed is malformed (a bug: the seed tests catch it) and kUnavailable on a database
// error; either way nothing is written.
Result<SeedReport> SeedIfEmpty(Connection& db);

}  // namespace gpuplan::db
