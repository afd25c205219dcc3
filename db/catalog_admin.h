// Single-resource catalog writes: GPUs, instance types, batches of price observations.
// Each call checks its records against db/field_rules.h, then writes in one BEGIN
// IMMEDIATE transaction. Errors: kConflict (exists / still referenced), kNotFound,
// kInvalidArgument naming the field, or naming "instance_types" / "prices" when the write
// would take the catalog past its cap (db/catalog_caps.h; nothing is written),
// kUnavailable when the database is busy or failing (see db/write_transaction.h).
#pragma once

#include <string>
#include <vector>

#include "db/catalog_types.h"
#include "db/catalog_writer.h"
#include "db/sql.h"
#include "model/gpu_spec.h"
#include "model/result.h"

namespace gpuplan::db {

class CatalogAdmin {
 public:
  explicit CatalogAdmin(Connection& db) : db_(db) {}

  Status CreateGpu(const model::GpuSpec& gpu);
  Result<bool> PutGpu(const model::GpuSpec& gpu);  // true when created
  Status DeleteGpu(const std::string& id);          // kConflict while instance types use it

  // The GPU must exist (kInvalidArgument on "/gpu"); an unknown cloud is created.
  Status CreateInstanceType(const InstanceType& type);
  Result<bool> PutInstanceType(const InstanceType& type);  // true when created
  Status DeleteInstanceType(const std::string& cloud, const std::string& id);  // and its prices

  // All or nothing; each observation's instance type and currency must exist (the errors
  // name "/prices/<i>/instance_type", "/prices/<i>/currency", every one at once).
  Result<WriteCounts> AddPrices(const std::vector<PriceObservation>& prices);
  // Those reference checks alone, without writing: `index[k]` is prices[k]'s position in
  // the caller's request (for the pointers); empty = k itself.
  std::vector<FieldError> PriceReferenceErrors(const std::vector<PriceObservation>& prices,
                                               const std::vector<size_t>& index = {});

  // Creates or replaces the rate of one currency.
  Status PutFxRate(const FxRate& rate);

 private:
  Result<bool> WriteGpu(const model::GpuSpec& gpu, bool replace);
  Result<bool> WriteInstanceType(const InstanceType& type, bool replace);
  bool Exists(const char* sql, const std::string& a, const std::string& b = "");
  Connection& db_;
};

}  // namespace gpuplan::db
