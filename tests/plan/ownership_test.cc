// Buy or rent (plan/ownership.h) against a small in-memory catalog: the arithmetic checked
// against figures worked out by hand, every default named, impossible inputs refused by field.
#include "plan/ownership.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "model/workload_presets.h"
#include "plan/planner.h"
#include "tests/model/model_fixtures.h"
#include "tests/plan/memory_catalog.h"

namespace gpuplan::plan {
namespace {

// One owned-style GPU ("OWN-1", a T4 with a launch price and a TDP) offered alone and in
// fours, an A100 machine for the same-work comparison, and a GPU without a launch price, a
// TDP or offers.
class OwnershipCatalog : public testing::MemoryCatalog {
 public:
  OwnershipCatalog() {
    model::GpuSpec own = model::testing::T4();
    own.id = own.name = "OWN-1";
    own.launch_price_usd = 1000;
    own.tdp_w = 250;
    model::GpuSpec bare = model::testing::T4();
    bare.id = bare.name = "BARE";
    gpus = {own, bare, model::testing::A100_80()};
    AddOffer("cloudy", "own1x1", "OWN-1", 1, "r-1", 0.50, 0.20, "pcie");
    AddOffer("cloudy", "own1x4", "OWN-1", 4, "r-2", 1.60, std::nullopt, "pcie");
    AddOffer("cloudy", "a100x1", "A100-80GB-SXM4", 1, "r-1", 3.00, 1.00, "pcie");
  }
};

OwnershipRequest Everything() {
  OwnershipRequest r;
  r.gpu = "OWN-1";
  r.gpus = 2;
  r.host_cost = 500;
  r.host_power_watts = 100;
  r.electricity_price_per_kwh = 0.2;
  r.utilisation = 0.5;
  r.years = 2;
  r.resale_fraction = 0.25;
  r.maintenance_per_year = 120;
  return r;
}

bool Names(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

// An assumption that names `field` as a default starts with it: "years 3: ...".
bool NamesDefault(const std::vector<std::string>& lines, const std::string& field) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.rfind(field + " ", 0) == 0; });
}

TEST(OwnershipTest, ArithmeticMatchesTheHandWorkedFigures) {
  OwnershipCatalog catalog;
  auto p = PlanOwnership(catalog, Everything());
  ASSERT_TRUE(p.ok()) << p.error().message;
  // capital 2 x 1000 + 500; 730 x 0.5 = 365 h a month.
  EXPECT_DOUBLE_EQ(p->purchase_price, 1000);
  EXPECT_DOUBLE_EQ(p->capital, 2500);
  EXPECT_DOUBLE_EQ(p->hours_used_per_month, 365);
  EXPECT_DOUBLE_EQ(p->capital_per_month, 78.125);  // 2500 x 0.75 / 24
  EXPECT_NEAR(p->power_per_month, 43.8, 1e-9);     // (2 x 250 + 100) W x 365 h x 0.2
  EXPECT_DOUBLE_EQ(p->maintenance_per_month, 10);  // 120 / 12
  EXPECT_NEAR(p->running_per_month, 53.8, 1e-9);
  EXPECT_NEAR(p->total_per_month, 131.925, 1e-9);
  EXPECT_NEAR(p->cost_per_gpu_hour, 131.925 / 730, 1e-12);  // 730 GPU-hours a month
  EXPECT_NEAR(p->power_per_gpu_hour, 0.06, 1e-12);          // 0.3 kW x 0.2
  ASSERT_EQ(p->comparisons.size(), 2u);  // no training: same GPU only
  // On demand: the 4-GPU instance is cheaper per GPU-hour (0.40) than the single (0.50).
  const RentComparison& od = p->comparisons[0];
  ASSERT_TRUE(od.found);
  EXPECT_EQ(od.offer.instance.id, "own1x4");
  EXPECT_DOUBLE_EQ(od.price_per_gpu_hour, 0.4);
  EXPECT_NEAR(od.rent_per_month, 292, 1e-9);  // 0.4 x 2 GPUs x 365 h
  ASSERT_TRUE(od.break_even_months);
  EXPECT_NEAR(*od.break_even_months, 2500 / 238.2, 1e-9);  // 292 - 53.8 saved a month
  // Spot 0.20: 146 a month, 92.2 saved, 27.1 months: past the 2 years, with a warning.
  const RentComparison& spot = p->comparisons[1];
  ASSERT_TRUE(spot.found);
  EXPECT_EQ(spot.offer.instance.id, "own1x1");
  ASSERT_TRUE(spot.break_even_months);
  EXPECT_NEAR(*spot.break_even_months, 2500 / 92.2, 1e-9);
  EXPECT_TRUE(Names(p->warnings, "beyond the 2 years"));
  // Given inputs are not defaults: no assumption names them.
  for (const char* given : {"host_cost", "host_power_watts", "electricity_price_per_kwh",
                            "utilisation", "years", "resale_fraction", "maintenance_per_year"}) {
    EXPECT_FALSE(NamesDefault(p->assumptions, given)) << given;
  }
  EXPECT_TRUE(NamesDefault(p->assumptions, "purchase_price"));  // the launch price
  EXPECT_TRUE(NamesDefault(p->assumptions, "power_watts"));     // the TDP
}

TEST(OwnershipTest, EveryDefaultIsNamedAndConvertedToTheCurrency) {
  OwnershipCatalog catalog;
  OwnershipRequest r;
  r.gpu = "OWN-1";
  r.currency = "EUR";  // 0.5 EUR per USD
  auto p = PlanOwnership(catalog, r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_DOUBLE_EQ(p->purchase_price, 500);  // the 1000 USD launch price
  EXPECT_DOUBLE_EQ(p->power_watts, 250);     // the TDP
  EXPECT_DOUBLE_EQ(p->electricity_price_per_kwh, 0.075);  // 0.15 USD
  EXPECT_DOUBLE_EQ(p->utilisation, 1);
  EXPECT_DOUBLE_EQ(p->years, 3);
  for (const char* name : {"purchase_price", "power_watts", "electricity_price_per_kwh",
                           "host_cost", "host_power_watts", "utilisation", "years",
                           "resale_fraction", "maintenance_per_year"}) {
    EXPECT_TRUE(NamesDefault(p->assumptions, name)) << name;
  }
  // 500 / 36 a month of capital; 0.25 kW x 730 h x 0.075 of power.
  EXPECT_NEAR(p->capital_per_month, 500.0 / 36, 1e-9);
  EXPECT_NEAR(p->power_per_month, 13.6875, 1e-9);
  // On demand 0.40 USD = 0.20 EUR per GPU-hour: 146 a month.
  ASSERT_TRUE(p->comparisons[0].break_even_months);
  EXPECT_NEAR(p->comparisons[0].rent_per_month, 146, 1e-9);
  EXPECT_NEAR(*p->comparisons[0].break_even_months, 500 / (146 - 13.6875), 1e-9);
}

TEST(OwnershipTest, RentingCheaperThanRunningNeverPaysOff) {
  OwnershipCatalog catalog;
  OwnershipRequest r = Everything();
  r.electricity_price_per_kwh = 2;  // 0.6 kW x 365 h x 2 = 438 a month, above any rent
  auto p = PlanOwnership(catalog, r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  for (const RentComparison& c : p->comparisons) {
    EXPECT_FALSE(c.break_even_months) << c.note;
    EXPECT_LT(c.savings_per_month, 0);
  }
  EXPECT_TRUE(Names(p->warnings, "never pays off"));
}

TEST(OwnershipTest, AGpuWithoutOffersSaysSo) {
  OwnershipCatalog catalog;
  OwnershipRequest r;
  r.gpu = "BARE";
  r.purchase_price = 800;
  r.power_watts = 70;
  auto p = PlanOwnership(catalog, r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->comparisons.size(), 2u);
  for (const RentComparison& c : p->comparisons) {
    EXPECT_FALSE(c.found);
    EXPECT_FALSE(c.break_even_months);
    EXPECT_NE(c.note.find("no "), std::string::npos) << c.note;
  }
}

TEST(OwnershipTest, SameWorkIsTheCheapestOptionAsFastPricedForAMonthOfWork) {
  OwnershipCatalog catalog;
  OwnershipRequest r = Everything();
  TrainingRequest& t = r.training.emplace();
  t.workload = *model::FindPreset("resnet-50");
  t.job.samples = 1281167;
  t.job.epochs = 1;
  t.job.global_batch = 256;
  t.job.precision_auto = true;
  auto p = PlanOwnership(catalog, r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->training);
  ASSERT_EQ(p->comparisons.size(), 4u);
  const OwnedTraining& owned = *p->training;
  EXPECT_NEAR(owned.jobs_per_month, 365 / owned.hours_per_job, 1e-9);
  // The owned 2x OWN-1 against what the catalog rents: a 4x OWN-1 or an A100 is as fast.
  for (size_t i : {2u, 3u}) {
    const RentComparison& c = p->comparisons[i];
    EXPECT_EQ(c.basis, OwnershipBasis::kSameWork);
    ASSERT_TRUE(c.found) << c.note;
    ASSERT_TRUE(c.hours_per_job);
    EXPECT_LE(*c.hours_per_job, owned.hours_per_job * (1 + 1e-9));
    if (c.kind == model::PriceKind::kOndemand) {
      // The job's on-demand cost x the jobs done in a month.
      EXPECT_NEAR(c.rent_per_month,
                  c.price_per_hour * c.nodes * *c.hours_per_job * owned.jobs_per_month, 1e-6);
    }
    if (c.break_even_months) {
      EXPECT_NEAR(*c.break_even_months, 2500 / (c.rent_per_month - 53.8), 1e-6);
    }
  }
  // The same answer as asking the planner for the cheapest option within the owned time.
  Planner planner(catalog);
  RecommendRequest rec;
  rec.training = r.training;
  rec.constraints.max_nodes = kOwnershipMaxRentedNodes;
  rec.constraints.deadline_hours = owned.hours_per_job * (1 + 1e-9);
  rec.constraints.kinds.Remove(model::PriceKind::kSpot);
  auto best = planner.Recommend(rec);
  ASSERT_TRUE(best.ok());
  ASSERT_FALSE(best->items.empty());
  EXPECT_EQ(p->comparisons[2].offer.instance.id, best->items[0].offer.instance.id);
  EXPECT_EQ(p->comparisons[2].nodes, best->items[0].nodes);
  EXPECT_TRUE(Names(p->assumptions, "same work"));
}

TEST(OwnershipTest, ImpossibleInputsNameTheirField) {
  OwnershipCatalog catalog;
  // The name of a field of the request itself, or "training job/name" for one of the job's
  // settings found within its training job.
  auto field_of = [&](OwnershipRequest r) -> std::string {
    auto p = PlanOwnership(catalog, r);
    if (p.ok() || p.error().fields.empty()) return "(accepted)";
    const FieldId& id = p.error().fields[0].id;
    if (id.within.empty() && id.object == Part::kInput) return id.name;
    if (id.within == std::vector<Part>{Part::kOwnedTraining} && id.object == Part::kJob) {
      return "training job/" + id.name;
    }
    return "(elsewhere)";
  };
  OwnershipRequest base;
  base.gpu = "OWN-1";
  auto with = [&](auto change) {
    OwnershipRequest r = base;
    change(r);
    return field_of(r);
  };
  EXPECT_EQ(with([](auto& r) { r.gpu = "NOPE"; }), "gpu");
  EXPECT_EQ(with([](auto& r) { r.gpu = ""; }), "gpu");
  EXPECT_EQ(with([](auto& r) { r.gpu = "BARE"; }), "purchase_price");  // no launch price
  EXPECT_EQ(with([](auto& r) {
              r.gpu = "BARE";
              r.purchase_price = 800;
            }),
            "power_watts");  // no TDP in the catalog
  EXPECT_EQ(with([](auto& r) { r.gpus = 0; }), "gpus");
  EXPECT_EQ(with([](auto& r) { r.purchase_price = 0; }), "purchase_price");
  EXPECT_EQ(with([](auto& r) { r.utilisation = 0; }), "utilisation");
  EXPECT_EQ(with([](auto& r) { r.utilisation = 1.5; }), "utilisation");
  EXPECT_EQ(with([](auto& r) { r.years = -1; }), "years");
  EXPECT_EQ(with([](auto& r) { r.resale_fraction = 2; }), "resale_fraction");
  EXPECT_EQ(with([](auto& r) { r.electricity_price_per_kwh = -0.1; }), "electricity_price_per_kwh");
  EXPECT_EQ(with([](auto& r) { r.power_watts = 0; }), "power_watts");
  EXPECT_EQ(with([](auto& r) { r.currency = "XYZ"; }), "currency");
  EXPECT_EQ(with([](auto& r) {
              TrainingRequest& t = r.training.emplace();
              t.workload = *model::FindPreset("resnet-50");
              t.job.samples = 1000;
              t.job.global_batch = 32;
              t.job.precision = model::Precision::kInt8;
            }),
            "training job/precision");
}

}  // namespace
}  // namespace gpuplan::plan
