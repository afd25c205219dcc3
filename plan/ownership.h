// Buy or rent: what a GPU machine one owns costs per GPU-hour used, and after how many months
// buying it pays off against renting (a) the same GPU on demand, (b) on spot, and, for a
// training workload, (c) the cheapest catalog option (any GPU, instance and node count) that
// does the owned machine's work at least as fast, on demand and on spot. No JSON, no HTTP.
//
// Money is in the request's currency throughout. Definitions (h = kHoursPerMonth = 730):
//   capital          = purchase_price x gpus + host_cost
//   hours used/month = h x utilisation
//   capital/month    = capital x (1 - resale_fraction) / (12 x years)
//   power/month      = (power_watts x gpus + host_power_watts) / 1000 x hours used/month
//                      x electricity_price_per_kwh          (power drawn only while used)
//   maintenance/month= maintenance_per_year / 12
//   running/month    = power/month + maintenance/month       (what owning costs after buying)
//   cost per GPU-hour= (capital/month + running/month) / (hours used/month x gpus)
//   rent/month       = what renting costs for the work the owned GPUs do in a month:
//                      (a, b) price per GPU-hour x gpus x hours used/month;
//                      (c) the rented option's cost of the training job x the jobs the owned
//                      machine finishes in a month (hours used/month / its hours per job)
//   break-even months= capital / (rent/month - running/month); none when renting costs no
//                      more than running the owned machine (it never pays off).
//
// Errors: kInvalidArgument naming the field by type (model/result.h: the request's "gpu",
// "purchase_price"; the training job's errors within Part::kOwnedTraining); kUnavailable
// when the catalog fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/catalog_reader.h"
#include "model/price_kind.h"
#include "model/result.h"
#include "plan/requests.h"

namespace gpuplan::plan {

// Limits of the request's numbers (the api layer reads with the same ones).
inline constexpr double kMaxOwnershipMoney = 1e10;      // purchase, host, maintenance/year
inline constexpr double kMaxOwnershipWatts = 1e6;       // per GPU and for the host
inline constexpr double kMaxElectricityPerKwh = 1e3;    // request currency
inline constexpr double kMaxOwnershipYears = 30;
// The electricity price when none is given: USD per kWh, converted to the request currency.
inline constexpr double kDefaultElectricityUsdPerKwh = 0.15;
inline constexpr double kDefaultOwnershipYears = 3;
// The rented "same work" options are searched up to this many instances.
inline constexpr int kOwnershipMaxRentedNodes = 4;

struct OwnershipRequest {
  std::string gpu;  // catalog GPU id
  int gpus = 1;     // GPUs in the owned machine (one node)
  std::optional<double> purchase_price;  // per GPU; default the catalog launch price
  std::optional<double> host_cost;       // the rest of the machine; default 0
  std::optional<double> power_watts;     // per GPU while used; default the GPU's TDP
  std::optional<double> host_power_watts;  // default 0
  std::optional<double> electricity_price_per_kwh;  // default kDefaultElectricityUsdPerKwh
  std::optional<double> utilisation;     // share of the hours in use, (0, 1]; default 1
  std::optional<double> years;           // of use; default kDefaultOwnershipYears
  std::optional<double> resale_fraction;  // of the capital recovered after `years`; default 0
  std::optional<double> maintenance_per_year;  // default 0
  std::string currency = "USD";
  // The workload that defines "the same work" for comparison (c); its hardware is ignored
  // (the owned machine), its currency is `currency`.
  std::optional<TrainingRequest> training;
};

enum class OwnershipBasis { kSameGpu, kSameWork };

// One rented alternative and its break-even.
struct RentComparison {
  OwnershipBasis basis = OwnershipBasis::kSameGpu;
  model::PriceKind kind = model::PriceKind::kOndemand;  // ondemand or spot
  bool found = false;  // false: the catalog has no such offer (`note` says why)
  std::string note;
  db::Offer offer;     // the instance type and region rented
  std::string gpu;     // its GPU
  int nodes = 1;       // instances rented
  int total_gpus = 0;  // GPUs rented
  double price_per_hour = 0;      // of one instance
  double price_per_gpu_hour = 0;  // price_per_hour / its GPUs
  std::optional<double> hours_per_job;  // (c): the rented option's hours for the job
  double rent_per_month = 0;      // for the work the owned GPUs do in a month
  double savings_per_month = 0;   // rent_per_month - running per month (may be negative)
  std::optional<double> break_even_months;  // none: never pays off
};

struct OwnedTraining {
  std::string workload;
  model::Precision precision = model::Precision::kBf16;
  double samples_per_s = 0;
  double tokens_per_s = 0;
  double hours_per_job = 0;
  double jobs_per_month = 0;
};

struct OwnershipPlan {
  std::string gpu, gpu_name;
  int gpus = 1;
  std::string currency;
  // The inputs as used (defaults filled in).
  double purchase_price = 0;  // per GPU
  double host_cost = 0;
  double power_watts = 0;  // per GPU
  double host_power_watts = 0;
  double electricity_price_per_kwh = 0;
  double utilisation = 1;
  double years = kDefaultOwnershipYears;
  double resale_fraction = 0;
  double maintenance_per_year = 0;
  // The figures (see the definitions above).
  double capital = 0;
  double hours_used_per_month = 0;
  double capital_per_month = 0, power_per_month = 0, maintenance_per_month = 0;
  double running_per_month = 0, total_per_month = 0;
  double cost_per_gpu_hour = 0;
  double capital_per_gpu_hour = 0, power_per_gpu_hour = 0, maintenance_per_gpu_hour = 0;
  std::optional<OwnedTraining> training;
  std::vector<RentComparison> comparisons;  // same GPU on demand, spot; then same work
  std::vector<std::string> assumptions;     // every default named
  std::vector<std::string> warnings;
};

// Answers `request` from `catalog`.
Result<OwnershipPlan> PlanOwnership(db::CatalogReader& catalog, const OwnershipRequest& request);

}  // namespace gpuplan::plan
