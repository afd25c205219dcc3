// A training recommendation planned on the worker pool answers exactly what the same walk
// answers on one thread: every count, every ranked option in order, the Pareto front, over
// the seeded catalog (more than one block of 64 offers) with on-demand, spot and
// spot_with_fallback options, a deadline and a budget; and every offer's options are walked
// once (no block lost or doubled when blocks are joined).
#include <gtest/gtest.h>

#include "db/cached_catalog.h"
#include "model/workload_presets.h"
#include "plan/planner.h"
#include "plan/worker_pool.h"
#include "tests/db/seeded_db_test.h"
#include "tests/plan/describe_options.h"

namespace gpuplan::plan {
namespace {

class ParallelWalkTest : public db::SeededDbTest {};

TEST_F(ParallelWalkTest, AnswersWhatOneThreadAnswers) {
  for (const char* workload : {"llama-2-7b", "bert-large", "resnet-50"}) {
    RecommendRequest request;
    request.training = TrainingRequest{};
    request.training->workload = *model::FindPreset(workload);
    request.training->job.samples = 2e7;
    request.training->job.epochs = 1;
    request.training->job.global_batch = 512;
    request.training->job.precision_auto = true;
    request.constraints.max_nodes = 4;
    request.constraints.deadline_hours = 200;
    request.constraints.budget = 20000;
    request.limit = 40;
    db::CachedCatalog parallel_catalog(*db_);
    auto parallel = Planner(parallel_catalog).Recommend(request);
    ASSERT_TRUE(parallel.ok()) << parallel.error().message;
    Result<Recommendation> serial = Error::Internal("not run");
    {
      SerialParallelFor one_thread;
      db::CachedCatalog serial_catalog(*db_);
      serial = Planner(serial_catalog).Recommend(request);
    }
    ASSERT_TRUE(serial.ok()) << serial.error().message;
    EXPECT_GT(parallel->considered, 64 * 3) << workload;  // more than one block of offers
    EXPECT_GT(parallel->feasible, 0) << workload;
    // Every offer walked once: each of its 3 node counts x 3 price kinds is one option,
    // counted once as feasible or under one rejection reason.
    auto all = parallel_catalog.AllOffers();
    ASSERT_TRUE(all.ok());
    const int too_large = parallel->rejected.at("node_too_large");
    EXPECT_EQ(parallel->considered, 9 * (static_cast<int>((*all)->size()) - too_large))
        << workload;
    int counted = parallel->feasible;
    for (const auto& [reason, n] : parallel->rejected) counted += reason == "node_too_large" ? 0 : n;
    EXPECT_EQ(counted, parallel->considered) << workload;
    SCOPED_TRACE(workload);
    testing::ExpectSameAnswer(*parallel, *serial);
    EXPECT_EQ(parallel->assumptions, serial->assumptions);
  }
}

}  // namespace
}  // namespace gpuplan::plan
