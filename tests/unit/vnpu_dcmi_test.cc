// Ascend vNPUs' templates from DCMI (ascend-910b-vnpu with the mock DCMI of
// tests/mocklibs/dcmi_metrics.cc loaded from beneath the root, answers from MOCK_DCMI_VNPU_FILE):
// each vNPU the kernel's /dev/vdavinci<id> showed gains its template (as its profile), AI Cores
// and memory; one DCMI lists that no node shows is a warning, never a partition; a failed or
// absent answer leaves the template unread, said in detect's text, never invented.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "render/inventory_json.h"
#include "render/inventory_text.h"
#include "test_support.h"

namespace anygpu {

namespace {

namespace fs = std::filesystem;

struct VnpuHost {
  explicit VnpuHost(const std::string& answers, const char* mock = "mock_dcmi_metrics.so")
      : root(tmp / "root"), answers_file(tmp / "vnpu-answers") {
    test::copy_tree(test::fixture_host("ascend-910b-vnpu"), root);
    if (mock) {
      auto dest = root + "/usr/local/Ascend/driver/lib64/driver/libdcmi.so";
      fs::create_directories(fs::path(dest).parent_path());
      fs::copy_file(test::mock_library(mock), dest);
    }
    std::ofstream(answers_file) << answers;
    ::setenv("MOCK_DCMI_VNPU_FILE", answers_file.c_str(), 1);
  }
  ~VnpuHost() { ::unsetenv("MOCK_DCMI_VNPU_FILE"); }
  test::TempDir tmp;
  std::string root, answers_file;
};

// Atlas A2 training templates (facts F-44: 24 AI Cores, vir06_1c_16g and vir12_3c_32g).
// Card 6 is 0000:c1:00.0 (NPU 0: vdavinci100, 101), card 7 is 0000:c2:00.0 (NPU 1: 116-119).
constexpr const char* kAnswers =
    "6 vnpu 100 vir12_3c_32g 12 32768\n"
    "6 vnpu 101 vir06_1c_16g 6 16384\n"
    "7 vnpu 116 vir06_1c_16g 6 16384\n"
    "7 vnpu 130 vir06_1c_16g 6 16384\n";

bool warned(const Inventory& inv, const std::string& text) {
  for (const auto& w : inv.diagnostics.warnings())
    if (w.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(VnpuDcmi, VnpusGainTemplateAiCoresAndMemory) {
  VnpuHost host(kAnswers);
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  const Device* npu0 = test::find_device(inv, "0000:c1:00.0");
  ASSERT_NE(npu0, nullptr);
  ASSERT_EQ(npu0->partitions.size(), 2u);
  EXPECT_EQ(npu0->partitions[0].profile, "vir12_3c_32g");
  EXPECT_EQ(npu0->partitions[0].ai_cores, 12.0);
  EXPECT_EQ(npu0->partitions[0].memory_total_bytes, 32ull << 30);
  EXPECT_EQ(npu0->partitions[1].profile, "vir06_1c_16g");
  const Device* npu1 = test::find_device(inv, "0000:c2:00.0");
  ASSERT_NE(npu1, nullptr);
  ASSERT_EQ(npu1->partitions.size(), 4u);
  EXPECT_EQ(npu1->partitions[0].profile, "vir06_1c_16g");
  // vdavinci117: DCMI did not describe it, so nothing is said about it but that.
  EXPECT_FALSE(npu1->partitions[1].profile);
  EXPECT_FALSE(npu1->partitions[1].ai_cores);
  EXPECT_TRUE(warned(inv, "dcmi lists vNPU 130 that no /dev/vdavinci130 shows; left out"));

  auto text = inventory_to_text(inv);
  EXPECT_NE(text.find("partition 0 (vnpu): 0000:c1:00.0/0, vir12_3c_32g, 12 AI Cores, 32.0 GiB, "
                      "/dev/vdavinci100"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("partition 1 (vnpu): 0000:c2:00.0/1, template not read (needs DCMI), "
                      "/dev/vdavinci117"),
            std::string::npos)
      << text;
  auto json = inventory_to_json(inv).dump();
  EXPECT_NE(json.find("\"profile\":\"vir12_3c_32g\",\"ai_cores\":12.0,"), std::string::npos)
      << json;
}

TEST(VnpuDcmi, AFailedListLeavesTheTemplatesUnread) {
  VnpuHost host("6 vnpu-fail\n7 vnpu 116 vir06_1c_16g 6 16384\n");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  const Device* npu0 = test::find_device(inv, "0000:c1:00.0");
  ASSERT_NE(npu0, nullptr);
  for (const auto& p : npu0->partitions) {
    EXPECT_FALSE(p.profile);
    EXPECT_FALSE(p.memory_total_bytes);
  }
  EXPECT_EQ(test::find_device(inv, "0000:c2:00.0")->partitions[0].profile, "vir06_1c_16g");
}

TEST(VnpuDcmi, WithoutDcmiTheTemplateIsSaidUnread) {
  VnpuHost host(kAnswers, /*mock=*/nullptr);
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  const Device* npu0 = test::find_device(inv, "0000:c1:00.0");
  ASSERT_NE(npu0, nullptr);
  EXPECT_FALSE(npu0->partitions[0].profile);
  auto text = inventory_to_text(inv);
  EXPECT_NE(text.find("partition 0 (vnpu): 0000:c1:00.0/0, template not read (needs DCMI), "
                      "/dev/vdavinci100"),
            std::string::npos)
      << text;
  EXPECT_EQ(inventory_to_json(inv).dump().find("ai_cores"), std::string::npos);
}

TEST(VnpuDcmi, ADcmiWithoutTheCallLeavesTheTemplatesUnread) {
  // tests/mocklibs/dcmi_no_topo.cc lists the NPUs and has no dcmi_get_device_info.
  VnpuHost host(kAnswers, "mock_dcmi_no_topo.so");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  const Device* npu0 = test::find_device(inv, "0000:c1:00.0");
  ASSERT_NE(npu0, nullptr);
  EXPECT_EQ(npu0->partitions.size(), 2u);
  for (const auto& p : npu0->partitions) EXPECT_FALSE(p.profile);
  EXPECT_NE(inventory_to_text(inv).find("0000:c1:00.0/1, template not read (needs DCMI)"),
            std::string::npos);
}

}  // namespace anygpu
