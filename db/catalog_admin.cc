#include "db/catalog_admin.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include <ctime>

#include "db/field_rules.h"
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
  SQLite::Statement s(db_, sql);
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
  } catch (const SQLite::Exception& e) {
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
    SQLite::Statement s(db_, "DELETE FROM gpus WHERE id = ?");
    s.bind(1, id);
    s.exec();
    tx.commit();
    return OkStatus();
  } catch (const SQLite::Exception& e) {
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
    WriteTransaction tx(db_);
    if (!Exists("SELECT 1 FROM gpus WHERE id = ?", type.gpu_id)) {
      return Error::Invalid("/gpu", "unknown GPU '" + type.gpu_id + "' (see GET /api/v1/gpus)");
    }
    bool existed = Exists("SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?", type.cloud, type.id);
    if (existed && !replace) {
      return Conflict(item + " exists; PUT /api/v1/instances/" + type.cloud + "/" + type.id +
                      " replaces it");
    }
    WriteCatalogBatch(db_, batch);
    tx.commit();
    return !existed;
  } catch (const SQLite::Exception& e) {
    return StorageError(e, item);
  }
}

Status CatalogAdmin::DeleteInstanceType(const std::string& cloud, const std::string& id) {
  try {
    WriteTransaction tx(db_);
    BumpCatalogGeneration(db_);
    SQLite::Statement s(db_, "DELETE FROM instance_types WHERE cloud = ? AND id = ?");
    s.bind(1, cloud);
    s.bind(2, id);
    if (s.exec() == 0) return Error::NotFound("no instance type '" + id + "' in cloud '" + cloud + "'");
    tx.commit();
    return OkStatus();
  } catch (const SQLite::Exception& e) {
    return StorageError(e, "instance type '" + id + "' in cloud '" + cloud + "'");
  }
}

Result<WriteCounts> CatalogAdmin::AddPrices(const std::vector<PriceObservation>& prices) {
  CatalogBatch batch;
  batch.prices = prices;
  Status valid = rules::CheckBatch(batch, std::time(nullptr));
  if (!valid.ok()) return valid.error();
  try {
    WriteTransaction tx(db_);
    for (size_t i = 0; i < prices.size(); ++i) {
      if (!Exists("SELECT 1 FROM fx_rates WHERE currency = ?", prices[i].currency)) {
        return Error::Invalid("/prices/" + std::to_string(i) + "/currency",
                              "no exchange rate for currency '" + prices[i].currency +
                                  "': add one first (PUT /api/v1/fx-rates/" + prices[i].currency + ")");
      }
      if (!Exists("SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?", prices[i].cloud,
                  prices[i].instance_type)) {
        return Error::Invalid("/prices/" + std::to_string(i) + "/instance_type",
                              "unknown instance type '" + prices[i].instance_type + "' in cloud '" +
                                  prices[i].cloud + "'");
      }
    }
    BatchCounts counts = WriteCatalogBatch(db_, batch);
    tx.commit();
    return counts.prices;
  } catch (const SQLite::Exception& e) {
    return StorageError(e, "the prices");
  }
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
  } catch (const SQLite::Exception& e) {
    return StorageError(e, "exchange rate " + rate.currency);
  }
}

}  // namespace gpuplan::db
