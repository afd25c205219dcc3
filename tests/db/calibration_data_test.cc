#include "db/calibration_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "model/calibration.h"

namespace gpuplan::db {
namespace {

TEST(CalibrationDataTest, MapsEveryPublishedRow) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok()) << data.error().message;
  // 86 rows of calibration.csv, 88 of calibration_more.csv and 216 of llm_training_mpt.csv:
  // every row has a preset.
  EXPECT_EQ(data->points.size(), 390u);
  EXPECT_TRUE(data->skipped.empty());
  // Kept out of the fit, with the reason: Transformer-XL (26 rows), nnU-Net 3D (8 rows:
  // 3D convolutions the zoo counts cannot describe) and the two AMP rows of EfficientNet-B0
  // on V100 whose source flags their speedup as unusually small.
  std::map<std::string, int> not_fitted;
  for (const auto& p : data->points) {
    if (!p.fitted) {
      EXPECT_FALSE(p.not_fitted_reason.empty());
      ++not_fitted[p.model_group];
      if (p.model_group == "EfficientNet-B0") {
        EXPECT_EQ(p.cluster.node.gpu.id, "V100-32GB-SXM2");
        EXPECT_TRUE(model::IsMixedPrecision(p.job.precision));
      }
    }
  }
  EXPECT_EQ(not_fitted, (std::map<std::string, int>{{"EfficientNet-B0", 2},
                                                    {"Transformer-XL base", 26},
                                                    {"nnU-Net 3D", 8}}));
}

// Guards today's accuracy against regressions (docs/model.md).
TEST(CalibrationDataTest, ShippedConstantsKeepTheirAccuracy) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  model::CalibrationReport r = model::Evaluate(data->points, model::DefaultConstants());
  EXPECT_LE(r.mape, 10.0);
  for (const auto& family : r.by_family) {
    // The decoder family's 26 Transformer-XL rows are reported, not fitted. GNMT's LSTM
    // (the rnn family's 8 rows) lost accuracy when the 216 MPT rows raised eta_16bit
    // (docs/model.md section 7): 16 -> 26 %.
    if (family.name == "rnn") {
      EXPECT_LE(family.mape, 30.0);
    }
    if (family.name != "decoder" && family.name != "rnn") {
      EXPECT_LE(family.mape, 20.0) << family.name;
    }
  }
  // The MPT pre-training runs (FSDP, 8-512 GPUs): each size, and the FP8 rows.
  int mpt_sizes = 0, fp8_groups = 0;
  for (const auto& model : r.by_model) {
    if (model.name.rfind("MPT-", 0) != 0) continue;
    ++mpt_sizes;
    EXPECT_LE(model.mape, 15.0) << model.name;
  }
  for (const auto& precision : r.by_precision) {
    if (precision.name != "fp8") continue;
    ++fp8_groups;
    EXPECT_EQ(precision.rows, 7);
    EXPECT_LE(precision.mape, 12.0);
  }
  EXPECT_EQ(mpt_sizes, 9);
  EXPECT_EQ(fp8_groups, 1);
}

TEST(CalibrationDataTest, FittingReproducesTheShippedConstants) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  model::CalibrationReport fitted = model::Fit(data->points, model::PriorConstants());
  model::CalibrationReport shipped = model::Evaluate(data->points, model::DefaultConstants());
  EXPECT_NEAR(fitted.mape, shipped.mape, 0.2);
  for (const model::FittedConstant& k : model::FittedConstants(fitted.constants)) {
    for (const model::FittedConstant& s : model::FittedConstants(model::DefaultConstants())) {
      if (k.name == s.name && s.value > 0) {
        EXPECT_NEAR(k.value / s.value, 1.0, 0.01) << k.name;
      }
    }
  }
}

TEST(CalibrationDataTest, HeldOutModelsAndGpusKeepTheirAccuracy) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  for (auto hold : {model::HoldOut::kModel, model::HoldOut::kGpu}) {
    model::CalibrationReport held_out =
        model::CrossValidate(data->points, model::PriorConstants(), hold);
    // Issue 25's target: each model (each MPT size) and each GPU predicted within 12 % by
    // a fit without it; the FP8 rows too.
    EXPECT_LE(held_out.mape, 12.0);
    bool fp8_held_out = false;
    for (const auto& precision : held_out.by_precision) {
      if (precision.name != "fp8") continue;
      fp8_held_out = true;
      EXPECT_LE(precision.mape, 12.0);
    }
    EXPECT_TRUE(fp8_held_out);
    if (hold == model::HoldOut::kModel) {
      // Leave-one-MPT-size-out: each MPT size is its own model group.
      double sum = 0;
      int rows = 0;
      for (const auto& p : held_out.points) {
        if (p.point->model_group.rfind("MPT-", 0) != 0) continue;
        sum += std::fabs(p.error_pct);
        ++rows;
      }
      EXPECT_EQ(rows, 216);
      EXPECT_LE(sum / rows, 12.0);
    }
    // Every fitted row is predicted once, by a fit that did not see it.
    EXPECT_EQ(held_out.points.size(), 354u);
  }
}

TEST(CalibrationDataTest, LoaderBoundRowsCountOnlyByTheirRatios) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  int grouped = 0;
  for (const auto& p : data->points) grouped += !p.ratio_group.empty();
  EXPECT_EQ(grouped, 28);  // Lambda's ResNet-50 rows
  model::CalibrationReport before = model::Evaluate(data->points, model::DefaultConstants());
  // Halving every measured value of the group (a slower loader) changes nothing...
  auto halved = data->points;
  for (auto& p : halved) {
    if (!p.ratio_group.empty()) p.measured /= 2;
  }
  EXPECT_NEAR(model::Evaluate(halved, model::DefaultConstants()).mape, before.mape, 1e-9);
  // ...but changing one GPU's ratio to the others does.
  for (auto& p : halved) {
    if (!p.ratio_group.empty() && p.cluster.node.gpu.id == "H100-80GB-SXM5") p.measured *= 3;
  }
  EXPECT_GT(model::Evaluate(halved, model::DefaultConstants()).mape, before.mape + 1);
}

TEST(CalibrationDataTest, ReadsGradientAccumulationFromTheNotes) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  bool found = false;
  for (const auto& p : data->points) {
    if (p.model_group == "BERT-large" && p.job.micro_batch == 256) {
      EXPECT_EQ(p.job.global_batch / (256 * p.cluster.TotalGpus()), 32);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace gpuplan::db
