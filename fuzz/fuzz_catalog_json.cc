// The bodies of the single-resource catalog writes: POST /api/v1/gpus and PUT
// /api/v1/gpus/{id} (api::DecodeGpu), POST /api/v1/instances and PUT
// /api/v1/instances/{cloud}/{id} (api::DecodeInstanceType), POST /api/v1/prices
// (api::DecodePrices) and PUT /api/v1/fx-rates/{currency} (mirrors PutFxRate in
// api/catalog_write_routes.cc). Each decoded record is then rendered (api/catalog_json.h)
// and checked with db::rules::CheckBatch, as CatalogAdmin does before writing; every
// error goes through the problem renderer. No database is needed.
#include <cstddef>
#include <cstdint>
#include <ctime>

#include "api/catalog_io.h"
#include "api/catalog_json.h"
#include "api/json_reader.h"
#include "db/field_rules.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

constexpr size_t kMaxPricesPerRequest = 10000;

void CheckRecord(const db::CatalogBatch& batch) {
  Status valid = db::rules::CheckBatch(batch, std::time(nullptr));
  if (!valid.ok()) CheckError(valid.error());
}

template <typename T>
bool Failed(const httplib::Request& req, const Result<T>& result) {
  if (result.ok()) return false;
  CheckRejection(result.error(), "a body decoder", &req);
  return true;
}

void Gpu(const nlohmann::json& body, const httplib::Request& req, const std::string& path_id) {
  auto gpu = api::DecodeGpu(body, path_id);
  if (Failed(req, gpu)) return;
  if (!path_id.empty()) Require(gpu->id == path_id, "DecodeGpu: the URL's id did not win");
  CheckEncodes(api::GpuJson(*gpu));
  db::CatalogBatch batch;
  batch.gpus.push_back(*gpu);
  CheckRecord(batch);
}

void Instance(const nlohmann::json& body, const httplib::Request& req, const std::string& cloud,
              const std::string& id) {
  auto type = api::DecodeInstanceType(body, cloud, id);
  if (Failed(req, type)) return;
  if (!cloud.empty()) Require(type->cloud == cloud, "DecodeInstanceType: the URL's cloud did not win");
  if (!id.empty()) Require(type->id == id, "DecodeInstanceType: the URL's id did not win");
  CheckEncodes(api::InstanceSpecJson(*type));
  db::CatalogBatch batch;
  batch.instance_types.push_back(*type);
  CheckRecord(batch);
}

void Prices(const nlohmann::json& body, const httplib::Request& req) {
  auto prices = api::DecodePrices(body, kFixedNowText, kMaxPricesPerRequest);
  if (Failed(req, prices)) return;
  Require(!prices->empty() && prices->size() <= kMaxPricesPerRequest,
          "DecodePrices accepted an empty or oversized list");
  db::CatalogBatch batch;
  batch.prices = *prices;
  CheckRecord(batch);
}

// PutFxRate's decoding (api/catalog_write_routes.cc), with the currency from the URL.
void FxRate(const nlohmann::json& body, const httplib::Request& req, const std::string& currency) {
  std::vector<FieldError> errors;
  api::JsonReader r(body, "", &errors);
  db::FxRate rate;
  rate.currency = currency;
  rate.units_per_usd = r.Number("units_per_usd", 1e-9, 1e9, true).value_or(0);
  rate.as_of = r.String("as_of", true).value_or("");
  rate.source = r.String("source").value_or("");
  r.Finish();
  if (!errors.empty()) return CheckErrorAnswer(req, api::BodyError(errors));
  db::CatalogBatch batch;
  batch.fx_rates.push_back(rate);
  CheckRecord(batch);
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan::fuzz;
  std::string text = Text(data, size);
  {
    auto req = PostRequest("/api/v1/gpus", text);
    if (auto body = ReadBody(req)) {
      Gpu(*body, req, "");
      Gpu(*body, req, "A100-80GB-SXM4");
    }
  }
  {
    auto req = PostRequest("/api/v1/instances", text);
    if (auto body = ReadBody(req)) {
      Instance(*body, req, "", "");
      Instance(*body, req, "aws", "p4d.24xlarge");
    }
  }
  {
    auto req = PostRequest("/api/v1/prices", text);
    if (auto body = ReadBody(req)) Prices(*body, req);
  }
  {
    auto req = BodyRequest("PUT", "/api/v1/fx-rates/JPY", text);
    if (auto body = ReadBody(req)) FxRate(*body, req, "JPY");
  }
  return 0;
}
