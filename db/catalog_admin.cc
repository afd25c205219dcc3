#include "db/catalog_admin.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

namespace gpuplan::db {

namespace {
Error Conflict(std::string message) { return Error{ErrorCode::kConflict, std::move(message), {}}; }
}  // namespace

bool CatalogAdmin::Exists(const char* sql, const std::string& a, const std::string& b) {
  SQLite::Statement s(db_, sql);
  s.bind(1, a);
  if (s.getBindParameterCount() > 1) s.bind(2, b);
  return s.executeStep();
}

Status CatalogAdmin::CreateGpu(const model::GpuSpec& gpu) {
  try {
    SQLite::Transaction tx(db_);
    if (Exists("SELECT 1 FROM gpus WHERE id = ?", gpu.id)) {
      return Conflict("GPU '" + gpu.id + "' exists; PUT /api/v1/gpus/" + gpu.id + " replaces it");
    }
    UpsertGpu(db_, gpu);
    tx.commit();
    return OkStatus();
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<bool> CatalogAdmin::PutGpu(const model::GpuSpec& gpu) {
  try {
    SQLite::Transaction tx(db_);
    bool existed = Exists("SELECT 1 FROM gpus WHERE id = ?", gpu.id);
    UpsertGpu(db_, gpu);
    tx.commit();
    return !existed;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Status CatalogAdmin::DeleteGpu(const std::string& id) {
  try {
    SQLite::Transaction tx(db_);
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
    return Error::Unavailable(e.what());
  }
}

Status CatalogAdmin::CreateInstanceType(const InstanceType& type) {
  auto created = PutInstanceType(type);
  if (!created.ok()) return created.error();
  return OkStatus();
}

Result<bool> CatalogAdmin::PutInstanceType(const InstanceType& type) {
  try {
    SQLite::Transaction tx(db_);
    if (!Exists("SELECT 1 FROM gpus WHERE id = ?", type.gpu_id)) {
      return Error::Invalid("/gpu", "unknown GPU '" + type.gpu_id + "' (see GET /api/v1/gpus)");
    }
    bool existed = Exists("SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?", type.cloud, type.id);
    CatalogBatch batch;
    batch.instance_types.push_back(type);
    WriteCatalogBatch(db_, batch);
    tx.commit();
    return !existed;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Status CatalogAdmin::DeleteInstanceType(const std::string& cloud, const std::string& id) {
  try {
    SQLite::Transaction tx(db_);
    BumpCatalogGeneration(db_);
    SQLite::Statement s(db_, "DELETE FROM instance_types WHERE cloud = ? AND id = ?");
    s.bind(1, cloud);
    s.bind(2, id);
    if (s.exec() == 0) return Error::NotFound("no instance type '" + id + "' in cloud '" + cloud + "'");
    tx.commit();
    return OkStatus();
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

Result<WriteCounts> CatalogAdmin::AddPrices(const std::vector<PriceObservation>& prices) {
  try {
    SQLite::Transaction tx(db_);
    for (size_t i = 0; i < prices.size(); ++i) {
      if (!Exists("SELECT 1 FROM fx_rates WHERE currency = ?", prices[i].currency)) {
        return Error::Invalid("/prices/" + std::to_string(i) + "/currency",
                              "no exchange rate for currency '" + prices[i].currency +
                                  "': add one first (gpuplan-format import of fx_rates)");
      }
      if (!Exists("SELECT 1 FROM instance_types WHERE cloud = ? AND id = ?", prices[i].cloud,
                  prices[i].instance_type)) {
        return Error::Invalid("/prices/" + std::to_string(i) + "/instance_type",
                              "unknown instance type '" + prices[i].instance_type + "' in cloud '" +
                                  prices[i].cloud + "'");
      }
    }
    CatalogBatch batch;
    batch.prices = prices;
    BatchCounts counts = WriteCatalogBatch(db_, batch);
    tx.commit();
    return counts.prices;
  } catch (const SQLite::Exception& e) {
    return Error::Unavailable(e.what());
  }
}

}  // namespace gpuplan::db
