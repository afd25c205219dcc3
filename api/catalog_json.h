// JSON renderings of catalog values (snake_case, units in names). JSON lives in api/ only.
#pragma once

#include <nlohmann/json.hpp>

#include <ctime>
#include <span>
#include <string>

#include "db/catalog_store.h"
#include "db/catalog_types.h"
#include "model/gpu_spec.h"
#include "model/spot_interruption.h"
#include "plan/pricing.h"

namespace gpuplan::api {

class JsonWriter;  // api/json_writer.h

using plan::RoundMoney;  // money as answers show it: 1e-6 of the unit

nlohmann::json GpuJson(const model::GpuSpec& gpu);
nlohmann::json CloudJson(const db::CloudSummary& cloud);
nlohmann::json RegionJson(const db::Region& region);
nlohmann::json InstanceSpecJson(const db::InstanceType& type);
// An offer as listed by /api/v1/instances: the instance's specs, region and prices, with
// `stale` true when its prices were observed more than plan::StalePriceDays() before `now`
// (plan/price_quality.h), and its spot interruption band (`spot_interruption`, null when
// none is known).
nlohmann::json OfferJson(const db::Offer& offer, std::time_t now);
// The same object written into `out` (the listing: no tree). OfferJson parses what it writes.
void WriteOffer(JsonWriter& out, const db::Offer& offer, std::time_t now);
// The offer's members named by `columns`, in that order, as one CSV row's cells appended to
// `row` (no line end): text through CsvTextCell (never a formula), numbers as the JSON has
// them, null and object members empty.
void AppendOfferCsvRow(std::string& row, std::span<const char* const> columns,
                       const db::Offer& offer, std::time_t now);
// An offer's region and prices only (inside /api/v1/instances/{cloud}/{type}).
nlohmann::json RegionalPriceJson(const db::Offer& offer, std::time_t now);

}  // namespace gpuplan::api
