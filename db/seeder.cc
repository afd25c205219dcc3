#include "db/seeder.h"

#include "db/field_rules.h"
#include "db/write_transaction.h"

#include <ctime>

#include <map>

#include "db/catalog_writer.h"
#include "db/csv.h"
#include "db/flat_csv_parser.h"
#include "db/gpu_csv.h"
#include "db/seed_files.h"
#include "db/spot_bands.h"
#include "db/sql.h"
#include "db/text.h"

namespace gpuplan::db {

namespace {

Result<CsvTable> SeedTable(std::string_view name) {
  for (const SeedFile& file : SeedFiles()) {
    if (file.name == name) {
      auto table = ParseCsv(file.content);
      if (!table.ok()) {
        return Error::Internal("seed file " + std::string(name) + ": " + table.error().message);
      }
      return table;
    }
  }
  return Error::Internal("seed file " + std::string(name) + " is not embedded");
}

// Calls `fn(field)` for every row of seed table `name`, where field(column) is the text.
template <typename Fn>
Status ForEachSeedRow(std::string_view name, Fn fn) {
  auto table = SeedTable(name);
  if (!table.ok()) return table.error();
  for (const CsvRow& row : table->rows()) {
    auto field = [&](const char* column) {
      return std::string(Trim(CsvTable::Field(row, table->Column(column))));
    };
    fn(field);
  }
  return OkStatus();
}

struct InterconnectOverride {
  std::string interconnect;
  double bw_gbps = 0;
  std::optional<double> network_gbps;
};

Result<std::map<std::pair<std::string, std::string>, InterconnectOverride>> LoadOverrides() {
  std::map<std::pair<std::string, std::string>, InterconnectOverride> overrides;
  Status st = ForEachSeedRow("instance_interconnect.csv", [&](auto field) {
    overrides[{field("cloud"), field("instance_type")}] = InterconnectOverride{
        field("interconnect"), ParseDouble(field("interconnect_bw_gbps")).value_or(0),
        ParseDouble(field("network_gbps"))};
  });
  if (!st.ok()) return st.error();
  return overrides;
}

void ApplyOverrides(
    const std::map<std::pair<std::string, std::string>, InterconnectOverride>& overrides,
    const GpuResolver& resolver, CatalogBatch& batch) {
  for (InstanceType& type : batch.instance_types) {
    auto it = overrides.find({type.cloud, type.id});
    if (it == overrides.end()) continue;
    const InterconnectOverride& o = it->second;
    if (!o.interconnect.empty()) {
      type.interconnect = o.interconnect;
      type.interconnect_bw_gbps = o.bw_gbps;
      if (const model::GpuSpec* gpu = resolver.FindGpu(type.gpu_id)) {
        DeriveInterconnect(*gpu, type);
      }
    }
    if (o.network_gbps) type.network_gbps = o.network_gbps;
  }
}

Result<SeedFileReport> SeedCatalogFile(Connection& db, const std::string& file,
                                       const std::string& cloud, const std::string& format,
                                       SkypilotOptions options, const GpuResolver& resolver,
                                       const GcpAttachRules& rules, const PublishedSizes& sizes) {
  auto table = SeedTable(file);
  if (!table.ok()) return table.error();
  Result<CatalogBatch> batch = Error::Internal("unknown seed format " + format);
  if (format == "skypilot") {
    options.cloud = cloud;
    if (cloud == "gcp") options.attach = &rules;
    options.sizes = &sizes;
    batch = ParseSkypilotCatalog(*table, options, resolver);
  } else if (format == "flat-csv") {
    batch = ParseFlatInstanceCsv(*table, resolver);
  } else if (format == "aws-spot-advisor") {
    batch = ParseSpotAdvisorCsv(*table, cloud, options.observed_at, options.source);
  }
  if (!batch.ok()) return Error::Internal("seed file " + file + ": " + batch.error().message);
  if (!batch->report.rejected.empty()) {
    const RowIssue& issue = batch->report.rejected.front();
    return Error::Internal("seed file " + file + " line " + std::to_string(issue.line) + ": " +
                           issue.reason);
  }
  auto overrides = LoadOverrides();
  if (!overrides.ok()) return overrides.error();
  ApplyOverrides(*overrides, resolver, *batch);
  Status valid = rules::CheckBatch(*batch, std::time(nullptr));
  if (!valid.ok()) {
    const auto& f = valid.error().fields;
    return Error::Internal("seed file " + file + ": " +
                           (f.empty() ? valid.error().message : f[0].field + ": " + f[0].detail));
  }
  std::string started = UtcNow();
  BatchCounts counts = WriteCatalogBatch(db, *batch);
  RecordImport(db, ImportAudit{"seed", format, cloud, started, UtcNow(),
                               batch->report.rows_used, counts.instance_types.updated,
                               batch->report.rows_skipped, batch->report.rows_rejected, false,
                               "embedded seed " + file});
  return SeedFileReport{file, cloud, batch->report,
                        static_cast<int>(batch->instance_types.size()),
                        static_cast<int>(batch->prices.size())};
}

// The embedded seed's GPUs (gpus.csv); kInternal if it is malformed.
Result<std::vector<model::GpuSpec>> SeedGpus() {
  auto table = SeedTable("gpus.csv");
  if (!table.ok()) return table.error();
  auto gpus = ParseGpuCsv(*table);
  if (!gpus.ok()) return Error::Internal("seed gpus.csv: " + gpus.error().message);
  return gpus;
}

Status SeedReferenceTables(Connection& db, GpuResolver& resolver, SeedReport& report) {
  auto gpus = SeedGpus();
  if (!gpus.ok()) return gpus.error();
  for (const model::GpuSpec& gpu : *gpus) {
    UpsertGpu(db, gpu);
    resolver.AddGpu(gpu);
  }
  report.gpus = static_cast<int>(gpus->size());
  Status st = ForEachSeedRow("clouds.csv", [&](auto f) {
    UpsertCloud(db, Cloud{f("id"), f("name"), f("default_currency")});
  });
  if (st.ok()) {
    st = ForEachSeedRow("regions.csv", [&](auto f) {
      UpsertRegion(db, Region{f("cloud"), f("id"), f("display_name"), f("country"),
                              f("continent")});
    });
  }
  if (st.ok()) {
    st = ForEachSeedRow("gpu_synonyms.csv", [&](auto f) {
      GpuSynonym synonym{f("cloud"), f("accelerator_name"), f("gpu_id"), f("note")};
      UpsertSynonym(db, synonym);
      resolver.AddSynonym(synonym);
    });
  }
  if (st.ok()) {
    st = ForEachSeedRow("fx_rates.csv", [&](auto f) {
      UpsertFxRate(db, FxRate{f("currency"), ParseDouble(f("units_per_usd")).value_or(0),
                              f("as_of"), f("source")});
    });
  }
  return st;
}

}  // namespace

Result<PublishedSizes> LoadPublishedSizes() {
  PublishedSizes sizes;
  Status st = ForEachSeedRow("instance_gpus.csv", [&](auto f) {
    sizes[{f("cloud"), f("instance_type")}] = PublishedSize{
        f("gpu_id"), static_cast<int>(ParseInteger(f("gpu_count")).value_or(0)), f("source")};
  });
  if (!st.ok()) return st.error();
  return sizes;
}

Result<GcpAttachRules> LoadGcpAttachRules() {
  GcpAttachRules rules;
  Status st = ForEachSeedRow("gcp_gpu_machines.csv", [&](auto f) {
    rules.machine_gpus[f("machine_type")] = {
        f("accelerator_name"), static_cast<int>(ParseInteger(f("accelerator_count")).value_or(0))};
  });
  if (st.ok()) {
    st = ForEachSeedRow("gcp_n1_attachments.csv", [&](auto f) {
      rules.n1_hosts.insert(
          {{f("accelerator_name"),
            static_cast<int>(ParseInteger(f("accelerator_count")).value_or(0))},
           f("host_instance_type")});
    });
  }
  if (!st.ok()) return st.error();
  return rules;
}

namespace {

// catalog_meta keys set once the seed's rows of a scope added after the first seed are in the
// catalog (at its seed, or once on an older catalog): the Kubernetes GPU labels, the spot
// interruption bands.
constexpr const char* kLabelsSeededKey = "kubernetes_labels_seeded_at";
constexpr const char* kSpotBandsSeededKey = "spot_bands_seeded_at";
constexpr const char* kFp4RatesSeededKey = "fp4_rates_seeded_at";

bool Marked(Connection& db, const char* key) {
  Statement s(db, "SELECT 1 FROM catalog_meta WHERE key = ?");
  s.bind(1, key);
  return s.executeStep();
}

void Mark(Connection& db, const char* key) {
  Statement mark(db, "INSERT INTO catalog_meta (key, value) VALUES (?, ?) "
                       "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  mark.bind(1, key);
  mark.bind(2, UtcNow());
  mark.exec();
}

// The embedded seed's synonym rows under `scope` for the GPUs that have none there (and are
// in the catalog), added: a catalog seeded by a build before the scope existed gets them,
// and a GPU's row an operator changed is kept. Returns how many.
Result<int> AddMissingSeedSynonyms(Connection& db, std::string_view scope) {
  Statement insert(db,
                           "INSERT INTO gpu_synonyms (cloud, accelerator_name, gpu_id, note) "
                           "SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM gpus WHERE id = ?3) "
                           "AND NOT EXISTS (SELECT 1 FROM gpu_synonyms WHERE cloud = ?1 AND "
                           "gpu_id = ?3) ON CONFLICT (cloud, accelerator_name) DO NOTHING");
  int added = 0;
  Status read = ForEachSeedRow("gpu_synonyms.csv", [&](auto f) {
    if (f("cloud") != scope) return;
    insert.bind(1, f("cloud"));
    insert.bind(2, f("accelerator_name"));
    insert.bind(3, f("gpu_id"));
    insert.bind(4, f("note"));
    added += insert.exec();
    insert.reset();
  });
  if (!read.ok()) return read.error();
  if (added > 0) BumpCatalogGeneration(db);
  return added;
}

}  // namespace

namespace {

// Seeds the files of seed_sources.csv (those of `format` only, when it is not empty) into
// `report.files`. `resolver` and `rules`: the seed's GPUs and GCP rules (null: none, for
// formats that name no GPU). Returns how many files were seeded.
Result<int> SeedSourcesOfFormat(Connection& db, const std::string& format,
                                SeedReport& report, const GpuResolver* resolver = nullptr,
                                const GcpAttachRules* rules = nullptr,
                                const PublishedSizes* sizes = nullptr) {
  std::vector<std::map<std::string, std::string>> sources;
  Status st = ForEachSeedRow("seed_sources.csv", [&](auto f) {
    if (!format.empty() && f("format") != format) return;
    sources.push_back({{"file", f("file")}, {"cloud", f("cloud")}, {"format", f("format")},
                       {"observed_at", f("observed_at")}, {"source", f("source")}});
  });
  if (!st.ok()) return st.error();
  const GpuResolver no_gpus;
  const GcpAttachRules no_rules;
  const PublishedSizes no_sizes;
  for (auto& s : sources) {
    SkypilotOptions options;
    options.observed_at = s["observed_at"];
    options.source = s["source"];
    auto file = SeedCatalogFile(db, s["file"], s["cloud"], s["format"], options,
                                resolver ? *resolver : no_gpus, rules ? *rules : no_rules,
                                sizes ? *sizes : no_sizes);
    if (!file.ok()) return file.error();
    report.files.push_back(std::move(file).value());
  }
  return static_cast<int>(sources.size());
}

// The embedded seed's FP4 rates (gpus.csv fp4_tflops, migration 10) set on the seed's GPUs
// that have none: a catalog seeded before the column holds 0 for every GPU. A rate an
// operator set is kept. Returns how many GPUs got one.
Result<int> AddMissingSeedFp4Rates(Connection& db) {
  auto gpus = SeedGpus();
  if (!gpus.ok()) return gpus.error();
  Statement update(db, "UPDATE gpus SET fp4_tflops = ? WHERE id = ? AND fp4_tflops = 0");
  int added = 0;
  for (const model::GpuSpec& gpu : *gpus) {
    if (!(gpu.fp4_tflops > 0)) continue;
    update.bind(1, gpu.fp4_tflops);
    update.bind(2, gpu.id);
    added += update.exec();
    update.reset();
  }
  if (added > 0) BumpCatalogGeneration(db);
  return added;
}

}  // namespace

Result<SeedReport> SeedIfEmpty(Connection& db) {
  try {
    // Seeded, and by this build's scopes too (every start but a catalog's first): nothing to
    // write, so no writers' lock to wait for behind a long import.
    if (Marked(db, "seeded_at") && Marked(db, kLabelsSeededKey) &&
        Marked(db, kSpotBandsSeededKey) && Marked(db, kFp4RatesSeededKey)) {
      return SeedReport{};
    }
    WriteTransaction tx(db);
    Statement seeded(db, "SELECT value FROM catalog_meta WHERE key = 'seeded_at'");
    if (seeded.executeStep()) {
      seeded.reset();
      // Seeded by an earlier build: once, the seed rows of the scopes added since are added
      // (the Kubernetes GPU labels, issue 26; the spot interruption bands, issue 27; the
      // Blackwell FP4 rates, issue 25);
      // nothing else is touched, and a row an operator deleted afterwards stays deleted.
      SeedReport report;
      bool changed = false;
      if (!Marked(db, kLabelsSeededKey)) {
        auto added = AddMissingSeedSynonyms(db, kKubernetesScope);
        if (!added.ok()) return added.error();
        report.kubernetes_labels_added = *added;
        Mark(db, kLabelsSeededKey);
        changed = true;
      }
      if (!Marked(db, kSpotBandsSeededKey)) {
        auto added = SeedSourcesOfFormat(db, "aws-spot-advisor", report);
        if (!added.ok()) return added.error();
        Mark(db, kSpotBandsSeededKey);
        changed = true;
      }
      if (!Marked(db, kFp4RatesSeededKey)) {
        auto added = AddMissingSeedFp4Rates(db);
        if (!added.ok()) return added.error();
        report.fp4_rates_added = *added;
        Mark(db, kFp4RatesSeededKey);
        changed = true;
      }
      if (changed) {
        tx.commit();
        RefreshPlannerStatistics(db);
      }
      return report;
    }
    SeedReport report;
    report.seeded = true;
    GpuResolver resolver;
    Status st = SeedReferenceTables(db, resolver, report);
    if (!st.ok()) return st.error();
    auto rules = LoadGcpAttachRules();
    if (!rules.ok()) return rules.error();
    auto sizes = LoadPublishedSizes();
    if (!sizes.ok()) return sizes.error();
    auto files = SeedSourcesOfFormat(db, "", report, &resolver, &*rules, &*sizes);
    if (!files.ok()) return files.error();
    Statement mark(db, "INSERT INTO catalog_meta (key, value) VALUES ('seeded_at', ?)");
    mark.bind(1, UtcNow());
    mark.exec();
    Mark(db, kLabelsSeededKey);
    Mark(db, kSpotBandsSeededKey);
    Mark(db, kFp4RatesSeededKey);
    tx.commit();
    RefreshPlannerStatistics(db);
    return report;
  } catch (const SqlError& e) {
    return Error::Unavailable(std::string("seeding failed: ") + e.what());
  }
}

}  // namespace gpuplan::db
