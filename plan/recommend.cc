// The recommendation question (plan/recommendation.h): the request's constraint names
// checked against the catalog, its currency set, then the training or the serving walk.
#include <set>

#include "db/offer_query.h"
#include "db/text.h"
#include "plan/recommend_walk.h"
#include "plan/reference_run.h"

namespace gpuplan::plan {

namespace {

// Every cloud, region and GPU the constraints name is in the catalog.
Status CheckConstraintNames(db::CatalogReader& catalog, const Constraints& c) {
  std::vector<FieldError> errors;
  if (!c.cloud_names.empty()) {
    auto clouds = catalog.ListClouds();
    if (!clouds.ok()) return clouds.error();
    std::set<std::string> known;
    for (const auto& cloud : *clouds) known.insert(cloud.cloud.id);
    for (size_t i = 0; i < c.cloud_names.size(); ++i) {
      if (!known.count(c.cloud_names[i])) {
        errors.push_back(FieldError::At({Part::kConstraints, "clouds", int(i)},
                                        "unknown cloud '" + db::Printable(c.cloud_names[i], 60) +
                                            "' (ids are lower case; see GET /api/v1/clouds)"));
      }
    }
  }
  if (!c.region_names.empty()) {
    auto regions = catalog.ListRegions("");
    if (!regions.ok()) return regions.error();
    std::set<std::string> known;
    for (const auto& region : *regions) known.insert(region.id);
    for (size_t i = 0; i < c.region_names.size(); ++i) {
      if (!known.count(c.region_names[i])) {
        errors.push_back(FieldError::At({Part::kConstraints, "regions", int(i)},
                                        "unknown region '" + db::Printable(c.region_names[i], 60) +
                                            "' (see GET /api/v1/regions)"));
      }
    }
  }
  if (!c.gpu_names.empty()) {
    auto gpus = catalog.ListGpus();
    if (!gpus.ok()) return gpus.error();
    for (size_t i = 0; i < c.gpu_names.size(); ++i) {
      bool known = false;
      for (const auto& g : *gpus) known = known || db::GpuIdMatches(g.id, c.gpu_names[i]);
      if (!known) {
        errors.push_back(FieldError::At(
            {Part::kConstraints, "gpus", int(i)},
            "unknown GPU '" + db::Printable(c.gpu_names[i], 60) +
                "': no catalog GPU is or starts with this name (see GET /api/v1/gpus)"));
      }
    }
  }
  if (!errors.empty()) {
    Error e{ErrorCode::kInvalidArgument, errors.front().detail, errors};
    if (errors.size() > 1) e.message = std::to_string(errors.size()) + " invalid fields";
    return e;
  }
  return OkStatus();
}

}  // namespace

Result<Recommendation> Recommend(PlanContext& context, const RecommendRequest& request) {
  Status names = CheckConstraintNames(context.catalog, request.constraints);
  if (!names.ok()) return names.error();
  Status currency = context.pricing.UseCurrency(request.training ? request.training->currency : request.inference->currency);
  if (!currency.ok()) return currency.error();
  if (request.training) {
    std::optional<ReferenceWork> reference;
    auto training = WithReferenceWork(context.hardware, *request.training, &reference);
    if (!training.ok()) return training.error();
    auto out = RecommendTraining(context, *training, request.constraints, request.objective,
                                 request.limit);
    if (out.ok() && reference) out->assumptions.push_back(ReferenceAssumption(*reference));
    return out;
  }
  return RecommendInference(context, *request.inference, request.constraints, request.objective,
                            request.limit);
}

}  // namespace gpuplan::plan
