#include "plan/reference_run.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpuplan::plan {

namespace {

// Combines two independent P10/P90 spreads (ratios to the central value) in log space.
double CombineSpread(double a, double b, bool high) {
  double la = std::log(std::max(a, 1e-12)), lb = std::log(std::max(b, 1e-12));
  double spread = std::sqrt(la * la + lb * lb);
  return std::exp(high ? spread : -spread);
}

}  // namespace

std::string ReferenceAssumption(const ReferenceWork& w) {
  return fmt::format(
      "reference run: the work is what the model predicts {} x {} processes in {:.4g} h at {}{} "
      "({:.4g} samples, P10-P90 {:.4g}-{:.4g})",
      w.cluster.TotalGpus(), w.cluster.node.gpu.id, w.hours, model::PrecisionName(w.precision),
      w.recipe_fallback, w.samples, w.p10_samples, w.p90_samples);
}

Result<TrainingRequest> WithReferenceWork(const HardwareResolver& hardware,
                                          const TrainingRequest& request,
                                          std::optional<ReferenceWork>* work) {
  if (!request.reference) return request;
  const ReferenceRun& ref = *request.reference;
  auto hw = hardware.Resolve(ref.hardware, PricingRequest{});
  if (!hw.ok()) return Error(hw.error()).Within(Part::kReferenceRun);
  model::TrainingJob job = request.job;
  job.samples = job.tokens = 0;
  job.epochs = 1;
  job.hours = ref.hours;
  if (ref.precision) {
    job.precision = *ref.precision;
    job.precision_auto = false;
  }
  // MXFP8 and NVFP4 are the planned hardware's recipes: a reference GPU without block-scaled
  // tensor cores ran its FP8 scaled per tensor, and one without FP4 what it trains best.
  const model::GpuSpec& ref_gpu = hw->cluster.node.gpu;
  const bool nvfp4_as_auto = !ref.precision && job.precision == model::Precision::kNvfp4 &&
                             !job.precision_auto && model::PeakTflops(ref_gpu, job.precision) <= 0;
  if (nvfp4_as_auto) job.precision_auto = true;
  const bool mxfp8_as_delayed =
      job.fp8_scaling == model::Fp8Scaling::kMxfp8 && !model::SupportsMicroscaling(ref_gpu);
  if (mxfp8_as_delayed) job.fp8_scaling = model::Fp8Scaling::kDelayed;
  auto e = model::EstimateTraining(request.workload, job, hw->cluster, model::DefaultConstants(),
                                   false);
  if (!e.ok()) return Error(e.error()).Within(Part::kReferenceRun);
  if (e->memory.verdict == model::FitVerdict::kDoesNotFit) {
    return Error::Invalid(FieldId{Part::kHardware, ""},
                          "the workload does not fit the reference hardware's memory, so the "
                          "model cannot say what it processed there")
        .Within(Part::kReferenceRun);
  }
  ReferenceWork w;
  w.cluster = hw->cluster;
  if (ref.hardware.from_catalog) {
    w.cloud = ref.hardware.cloud;
    w.instance_type = ref.hardware.instance_type;
  }
  w.hours = ref.hours;
  w.precision = e->precision;
  if (mxfp8_as_delayed && e->precision == model::Precision::kFp8) {
    w.recipe_fallback = " with delayed scaling (it has no block-scaled tensor cores for mxfp8)";
  }
  if (nvfp4_as_auto) {
    w.recipe_fallback += " (precision auto: it has no FP4 tensor cores for nvfp4)";
  }
  w.samples_per_s = e->samples_per_s;
  w.samples = e->total_samples;
  w.p10_samples = e->work_p10_samples;
  w.p90_samples = e->work_p90_samples;
  w.tokens = e->total_tokens;
  TrainingRequest out = request;
  out.reference.reset();
  out.job.samples = w.samples;
  out.job.tokens = 0;
  out.job.hours = 0;
  out.job.epochs = 1;
  *work = w;
  return out;
}

void WidenByReference(model::TrainingEstimate& e, const ReferenceWork& work) {
  double t = e.total_hours;
  if (t <= 0 || work.samples <= 0) return;
  e.p10_hours = t * CombineSpread(work.p10_samples / work.samples, e.p10_hours / t, false);
  e.p90_hours = t * CombineSpread(work.p90_samples / work.samples, e.p90_hours / t, true);
}

}  // namespace gpuplan::plan
