#include "db/calibration_data.h"

#include <gtest/gtest.h>

#include "model/calibration.h"

namespace gpuplan::db {
namespace {

TEST(CalibrationDataTest, MapsEveryPublishedRow) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_EQ(data->points.size(), 86u);
  EXPECT_TRUE(data->skipped.empty());
}

TEST(CalibrationDataTest, ShippedConstantsMeetTheAccuracyTarget) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  model::CalibrationReport r = model::Evaluate(data->points, model::DefaultConstants());
  EXPECT_LE(r.mape, 15.0);
  for (const auto& family : r.by_family) EXPECT_LE(family.mape, 20.0) << family.name;
}

TEST(CalibrationDataTest, FittingReproducesTheShippedConstants) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  model::CalibrationReport fitted = model::Fit(data->points, model::PriorConstants());
  model::CalibrationReport shipped = model::Evaluate(data->points, model::DefaultConstants());
  EXPECT_NEAR(fitted.mape, shipped.mape, 0.2);
  for (const auto& [name, value] : model::FittedConstants(fitted.constants)) {
    for (const auto& [shipped_name, shipped_value] :
         model::FittedConstants(model::DefaultConstants())) {
      if (name == shipped_name && shipped_value > 0) {
        EXPECT_NEAR(value / shipped_value, 1.0, 0.01) << name;
      }
    }
  }
}

TEST(CalibrationDataTest, HeldOutModelsArePredictedWithinTwentyPercent) {
  auto data = LoadEmbeddedCalibrationData();
  ASSERT_TRUE(data.ok());
  model::CalibrationReport held_out = model::CrossValidate(data->points, model::PriorConstants());
  EXPECT_LE(held_out.mape, 20.0);
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
