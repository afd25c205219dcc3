#include "db/catalog_admin.h"

#include <ctime>

#include "db/catalog_caps.h"
#include "db/field_rules.h"
#include "db/sql.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

namespace {

Error Conflict(std::string message) { return Error{ErrorCode::kConflict, std::move(message), {}}; }

// The rules of db/field_rules.h on a single record: its fields are named without the
// "/<table>/0" prefix CheckBatch gives them, as the JSON body's own pointers.
Status CheckOne(const CatalogBatch& batch, const std::string& table) {
  Status st = rules::CheckBatch(batch, std::time(nullptr));
  if (st.ok()) return st;
  Error e = st.error();
  std::string prefix = "/" + table + "/0";
  for (FieldError& f : e.fields) {
    if (f.field.rfind(prefix, 0) == 0) f.field = f.field.substr(prefix.size());
  }
  e.message = e.fields.empty() ? e.message : e.fields.front().detail;
  return e;
}

}  // namespace

bool CatalogAdmin::Exists(const char* sql, const std::string& a, const std::string& b) {
  Statement s(db_, sql);
  s.bind(1, a);
  if (s.getBindParameterCount() > 1) s.bind(2, b);
  return s.executeStep();
}

Status CatalogAdmin::CreateGpu(const model::GpuSpec& gpu) {
  auto created = WriteGpu(gpu, /*replace=*/false);
  if (!created.ok()) return created.error();
  return OkStatus();
}

Result<bool> CatalogAdmin::PutGpu(const model::GpuSpec& gpu) { return WriteGpu(gpu, true); }

Result<bool> CatalogAdmin::WriteGpu(const model::GpuSpec& gpu, bool replace) {
  CatalogBatch batch;
  batch.gpus.push_back(gpu);
  Status valid = CheckOne(batch, "gpus");
  if (!valid.ok()) return valid.error();
  try {
    WriteTransaction tx(db_);
    bool existed = Exists("SELECT 1 FROM gpus WHERE id = ?", gpu.id);
    if (existed && !replace) {
      return Conflict("GPU '" + gpu.id + "' exists; PUT /api/v1/gpus/" + gpu.id + " replaces it");
    }
    UpsertGpu(db_, gpu);
    tx.commit();
    return !existed;
  } catch (const SqlError& e) {
    return StorageError(e, "GPU '" + gpu.id + "'");
  }
}

Status CatalogAdmin::DeleteGpu(const std::string& id) {
  try {
    WriteTransaction tx(db_);
    if (!Exists("SELECT 1 FROM gpus WHERE id = ?", id)) return Error::NotFound("no GPU '" + id + "'");
    if (Exists("SELECT 1 FROM instance_types WHERE gpu_id = ?", id)) {
      return Conflict("GPU '" + id + "' is used by instance types; delete them first");
    }
    BumpCatalogGeneration(db_);
    Statement s(db_, "DELETE FROM gpus WHERE id = ?");
    s.bind(1, id);
    s.exec();
    tx.commit();
    return OkStatus();
  } catch (const SqlError& e) {
    return StorageError(e, "GPU '" + id + "'");
  }
}

Status CatalogAdmin::CreateInstanceType(const InstanceType& type) {
  auto created = WriteInstanceType(type, /*replace=*/false);
  if (!created.ok()) return created.error();
  return OkStatus();
}

Result<bool> CatalogAdmin::PutInstanceType(const InstanceType& type) {
  return WriteInstanceType(type, true);
}

Result<bool> CatalogAdmin::WriteInstanceType(const InstanceType& type, bool replace) {
  CatalogBatch batch;
  batch.instance_types.push_back(type);
  Status valid = CheckOne(batch, "instance_types");
  if (!valid.ok()) return valid.error();
  std::string item = "instance type '" + type.id + "' in cloud '" + type.cloud + "'";
  try {
    CatalogCount counted;  // before the write lock (db/catalog_caps.h)
    Status fits = PrecheckCatalogSize(db_, batch, counted);
    if (!fits.ok()) return fits.error();
    WriteTransaction tx(db_);
    if (!Exists("SELECT 1 FROM gpus WHERE id = ?", type.gpu_id)) {
      return Error::Invalid("/gpu", "unknown GPU '" + type.gpu_id + "' (see GET /api/v1/gpus)");
    }
    bool existed = Exists("SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?", type.cloud, type.id);
    if (existed && !replace) {
      return Conflict(item + " exists; PUT /api/v1/instances/" + type.cloud + "/" + type.id +
                      " replaces it");
    }
    Status capped = CheckCatalogSize(db_, batch, counted);
    if (!capped.ok()) return capped.error();  // rolls back
    WriteCatalogBatch(db_, batch);
    tx.commit();
    return !existed;
  } catch (const SqlError& e) {
    return StorageError(e, item);
  }
}

Status CatalogAdmin::DeleteInstanceType(const std::string& cloud, const std::string& id) {
  try {
    WriteTransaction tx(db_);
    BumpCatalogGeneration(db_);
    Statement s(db_, "DELETE FROM instance_types WHERE cloud = ? AND id = ?");
    s.bind(1, cloud);
    s.bind(2, id);
    if (s.exec() == 0) return Error::NotFound("no instance type '" + id + "' in cloud '" + cloud + "'");
    tx.commit();
    return OkStatus();
  } catch (const SqlError& e) {
    return StorageError(e, "instance type '" + id + "' in cloud '" + cloud + "'");
  }
}

Result<WriteCounts> CatalogAdmin::AddPrices(const std::vector<PriceObservation>& prices) {
  CatalogBatch batch;
  batch.prices = prices;
  Status valid = rules::CheckBatch(batch, std::time(nullptr));
  if (!valid.ok()) return valid.error();
  try {
    CatalogCount counted;  // before the write lock (db/catalog_caps.h)
    Status fits = PrecheckCatalogSize(db_, batch, counted);
    if (!fits.ok()) return fits.error();
    WriteTransaction tx(db_);
    std::vector<FieldError> missing = PriceReferenceErrors(prices);
    if (!missing.empty()) {
      Error e{ErrorCode::kInvalidArgument, missing.front().detail, missing};
      if (missing.size() > 1) e.message = std::to_string(missing.size()) + " invalid fields";
      return e;
    }
    Status capped = CheckCatalogSize(db_, batch, counted);
    if (!capped.ok()) return capped.error();  // rolls back
    BatchCounts counts = WriteCatalogBatch(db_, batch);
    tx.commit();
    return counts.prices;
  } catch (const SqlError& e) {
    return StorageError(e, "the prices");
  }
}

std::vector<FieldError> CatalogAdmin::PriceReferenceErrors(const std::vector<PriceObservation>& prices,
                                                           const std::vector<size_t>& index) {
  constexpr size_t kMaxErrors = 100;
  std::vector<FieldError> errors;
  for (size_t k = 0; k < prices.size() && errors.size() < kMaxErrors; ++k) {
    const PriceObservation& p = prices[k];
    std::string at = "/prices/" + std::to_string(index.empty() ? k : index[k]);
    if (!Exists("SELECT 1 FROM fx_rates WHERE currency = ?", p.currency)) {
      errors.push_back({at + "/currency", "no exchange rate for currency '" + p.currency +
                                              "': add one first (PUT /api/v1/fx-rates/" +
                                              p.currency + ")"});
    }
    if (!Exists("SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?", p.cloud,
                p.instance_type)) {
      errors.push_back({at + "/instance_type", "unknown instance type '" + p.instance_type +
                                                   "' in cloud '" + p.cloud + "'"});
    }
  }
  return errors;
}

Status CatalogAdmin::PutFxRate(const FxRate& rate) {
  CatalogBatch batch;
  batch.fx_rates.push_back(rate);
  Status valid = CheckOne(batch, "fx_rates");
  if (!valid.ok()) return valid.error();
  try {
    WriteTransaction tx(db_);
    UpsertFxRate(db_, rate);
    tx.commit();
    return OkStatus();
  } catch (const SqlError& e) {
    return StorageError(e, "exchange rate " + rate.currency);
  }
}

}  // namespace gpuplan::db
