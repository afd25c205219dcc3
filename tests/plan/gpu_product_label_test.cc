// The nvidia.com/gpu.product label of a GPU: the catalog's kubernetes-scope gpu_synonyms row
// when it has one (sourced or derived, as its note says), else GPU Feature Discovery's rule
// "NVIDIA-<id>" when that is a label value; none for a GPU that is not NVIDIA's. And the
// seeded catalog's labels, pinned: a missing or changed row fails here.
#include "plan/gpu_product_label.h"

#include <gtest/gtest.h>

#include <map>

#include "db/catalog_store.h"
#include "plan/runnable.h"
#include "tests/db/seeded_db_test.h"

namespace gpuplan::plan {
namespace {

db::GpuSynonym Row(const std::string& value, const std::string& gpu_id, const std::string& note) {
  return {db::kKubernetesScope, value, gpu_id, note};
}

TEST(GfdProductLabel, TheCatalogRowWinsAndItsNoteSaysWhetherItWasSeen) {
  auto seen = GfdProductLabel("H100-80GB-SXM5", "NVIDIA",
                              Row("NVIDIA-H100-80GB-HBM3", "H100-80GB-SXM5", "sourced: seen on nodes"));
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->value, "NVIDIA-H100-80GB-HBM3");
  EXPECT_TRUE(seen->sourced);
  auto derived = GfdProductLabel("H200-141GB-SXM", "",
                                 Row("NVIDIA-H200", "H200-141GB-SXM", "derived: GFD's rule"));
  ASSERT_TRUE(derived);
  EXPECT_EQ(derived->value, "NVIDIA-H200");
  EXPECT_FALSE(derived->sourced);
  // Only a note that starts "sourced:" marks the value as seen.
  EXPECT_FALSE(GfdProductLabel("T4", "NVIDIA", Row("Tesla-T4", "T4", "not sourced: x"))->sourced);
}

TEST(GfdProductLabel, WithoutAUsableRowGfdsRuleOnTheIdOrNone) {
  auto rule = GfdProductLabel("RTX-6000-Ada", "NVIDIA", std::nullopt);
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->value, "NVIDIA-RTX-6000-Ada");
  EXPECT_FALSE(rule->sourced);
  // A row whose value is not a label value is not used.
  auto bad_row = GfdProductLabel("L4", "NVIDIA", Row("NVIDIA L4", "L4", "sourced: x"));
  ASSERT_TRUE(bad_row);
  EXPECT_EQ(bad_row->value, "NVIDIA-L4");
  EXPECT_FALSE(bad_row->sourced);
  // An id that makes no label value ('+', '(', over 63 characters) gets none.
  EXPECT_FALSE(GfdProductLabel("a+b", "NVIDIA", std::nullopt));
  EXPECT_FALSE(GfdProductLabel("X(1)", "", std::nullopt));
  EXPECT_FALSE(GfdProductLabel(std::string(60, 'A'), "NVIDIA", std::nullopt));
  // GFD labels NVIDIA GPUs only, whatever the catalog says.
  EXPECT_FALSE(GfdProductLabel("MI300X", "AMD", std::nullopt));
  EXPECT_FALSE(GfdProductLabel("TPU-v5e", "Google", Row("x", "TPU-v5e", "sourced: x")));
}

class SeededGpuProductLabelTest : public db::SeededDbTest {};

// Every seeded GPU's label as plan::AddCatalogNames fills it from the catalog.
TEST_F(SeededGpuProductLabelTest, EverySeededGpuHasItsLabel) {
  // id -> {label, sourced}: the seed's kubernetes rows (db/seed/gpu_synonyms.csv).
  const std::map<std::string, GpuProductLabel> rows = {
      {"T4", {"Tesla-T4", true}},
      {"V100-16GB-SXM2", {"Tesla-V100-SXM2-16GB", true}},
      {"V100-32GB-SXM2", {"Tesla-V100-SXM2-32GB", true}},
      {"P100-16GB-PCIe", {"Tesla-P100-PCIE-16GB", true}},
      {"K80", {"Tesla-K80", false}},
      {"A10", {"NVIDIA-A10", true}},
      {"A10G", {"NVIDIA-A10G", true}},
      {"A40", {"NVIDIA-A40", true}},
      {"A30", {"NVIDIA-A30", false}},
      {"L4", {"NVIDIA-L4", true}},
      {"L40S", {"NVIDIA-L40S", true}},
      {"A100-40GB-SXM4", {"NVIDIA-A100-SXM4-40GB", true}},
      {"A100-80GB-SXM4", {"NVIDIA-A100-SXM4-80GB", true}},
      {"A100-40GB-PCIe", {"NVIDIA-A100-PCIE-40GB", true}},
      {"A100-80GB-PCIe", {"NVIDIA-A100-80GB-PCIe", true}},
      {"H100-80GB-SXM5", {"NVIDIA-H100-80GB-HBM3", true}},
      {"H100-80GB-PCIe", {"NVIDIA-H100-PCIe", true}},
      {"H100-NVL-94GB", {"NVIDIA-H100-NVL", true}},
      {"H200-141GB-SXM", {"NVIDIA-H200", false}},
      {"B200-180GB-SXM", {"NVIDIA-B200", false}},
      {"RTX-A6000", {"NVIDIA-RTX-A6000", true}},
      {"RTX-A5000", {"NVIDIA-RTX-A5000", true}},
      {"RTX-4090", {"NVIDIA-GeForce-RTX-4090", false}},
      {"RTX-3090", {"NVIDIA-GeForce-RTX-3090", true}},
  };
  EXPECT_EQ(Count("SELECT COUNT(*) FROM gpu_synonyms WHERE cloud = 'kubernetes'"),
            static_cast<long long>(rows.size()));
  db::CatalogStore store(*db_);
  auto gpus = store.ListGpus();
  ASSERT_TRUE(gpus.ok());
  for (const auto& gpu : *gpus) {
    RunnablePlan p;
    p.gpu_id = gpu.id;
    ASSERT_TRUE(AddCatalogNames(store, p).ok()) << gpu.id;
    if (gpu.vendor != "NVIDIA") {
      EXPECT_FALSE(p.gpu_product_label) << gpu.id;
      continue;
    }
    ASSERT_TRUE(p.gpu_product_label) << gpu.id;
    auto row = rows.find(gpu.id);
    GpuProductLabel want = row != rows.end() ? row->second : GpuProductLabel{"NVIDIA-" + gpu.id, false};
    EXPECT_EQ(p.gpu_product_label->value, want.value) << gpu.id;
    EXPECT_EQ(p.gpu_product_label->sourced, want.sourced) << gpu.id;
  }
}

// The seed's kubernetes rows: one per GPU, each a label value with a note that says how it
// is known.
TEST_F(SeededGpuProductLabelTest, SeedRowsAreLabelValuesOfKnownGpusWithTheirEvidence) {
  EXPECT_EQ(Count("SELECT COUNT(*) FROM (SELECT gpu_id FROM gpu_synonyms WHERE cloud = 'kubernetes' "
                  "GROUP BY gpu_id HAVING COUNT(*) > 1)"),
            0);
  gpuplan::db::Statement s(*db_, "SELECT accelerator_name, coalesce(gpu_id, ''), note FROM gpu_synonyms "
                            "WHERE cloud = 'kubernetes'");
  while (s.executeStep()) {
    std::string value = s.getColumn(0).getString(), note = s.getColumn(2).getString();
    EXPECT_TRUE(IsLabelValue(value)) << value;
    EXPECT_FALSE(s.getColumn(1).getString().empty()) << value;
    EXPECT_TRUE(note.rfind("sourced:", 0) == 0 || note.rfind("derived:", 0) == 0) << value << ": " << note;
  }
}

}  // namespace
}  // namespace gpuplan::plan
