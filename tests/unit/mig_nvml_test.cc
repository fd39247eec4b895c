// NVML's MIG devices on the instances the driver's capability procfs shows (h100-8x-mig with the
// mock NVML of tests/mocklibs/nvml_mig.cc loaded from beneath the root): each instance gains its
// MIG-<uuid> (its id from then on), profile and memory, and what consumes partitions uses them
// (gres Type from the profile, CDI names by uuid, k8s profile counts). The protocol that carries
// them from the worker refuses malformed MIG records.
#include <gtest/gtest.h>

#include <filesystem>

#include "cluster/gres.h"
#include "cluster/k8s.h"
#include "probe/libs/probe_protocol.h"
#include "test_support.h"
#include "worker/message.h"

namespace anygpu {

namespace {

namespace fs = std::filesystem;

struct MigHost {
  MigHost() : root(tmp / "root") {
    test::copy_tree(test::fixture_host("h100-8x-mig"), root);
    auto dest = root + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";
    fs::create_directories(fs::path(dest).parent_path());
    fs::copy_file(test::mock_library("mock_nvml_mig.so"), dest);
  }
  test::TempDir tmp;
  std::string root;
};

}  // namespace

TEST(MigNvml, InstancesGainUuidProfileAndMemory) {
  MigHost host;
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  for (const auto& w : inv.diagnostics.warnings()) EXPECT_EQ(w.find("MIG"), std::string::npos) << w;
  const Device* gpu1 = test::find_device(inv, "0000:2a:00.0");
  ASSERT_NE(gpu1, nullptr);
  ASSERT_EQ(gpu1->partitions.size(), 3u);
  const auto& split = gpu1->partitions[2];  // GI 2, CI 1
  EXPECT_EQ(split.id, "MIG-5c2e9d41-7a3b-5f60-8e12-3a4b5c6d7e21");
  EXPECT_EQ(split.uuid, split.id);
  EXPECT_EQ(split.profile, "2c.3g.40gb");
  EXPECT_EQ(split.memory_total_bytes, 40802189312ULL);
  EXPECT_EQ(gpu1->partitions[0].profile, "4g.40gb");
  // The nodes stay the procfs's: NVML names no node.
  EXPECT_EQ(split.device_nodes.back(), "/dev/nvidia-caps/nvidia-cap158");

  auto lines = gres_lines(inv, nullptr);
  EXPECT_EQ(lines[0].type, "h100_1g.10gb");
  EXPECT_EQ(lines[9].type, "h100_2c.3g.40gb");
  auto conf = gres_conf(lines, "n", {});
  EXPECT_NE(conf.find("Gres=gpu:h100_1g.10gb:7,gpu:h100_4g.40gb:1,gpu:h100_1c.3g.40gb:1,"
                      "gpu:h100_2c.3g.40gb:1,gpu:h100_3g.40gb:1,gpu:h100:5"),
            std::string::npos)
      << conf;
  bool counted = false;
  for (const auto& [k, v] : node_labels(inv, "anygpu.io"))
    counted = counted || (k == "anygpu.io/mig-1g.10gb.count" && v == "7");
  EXPECT_TRUE(counted);
}

TEST(MigNvml, ProtocolCarriesMigRecordsAndRefusesMalformedOnes) {
  LibraryResult r;
  r.report = {"nvidia", "nvml", LibraryStatus::loaded, {}, {}};
  LibraryDeviceFacts d;
  d.address = *PciAddress::parse("0000:2a:00.0");
  d.mig.push_back({2, 1, "MIG-x", "2c.3g.40gb", 40802189312ULL});
  d.mig.push_back({1, 0, {}, {}, {}});
  r.devices.push_back(d);
  auto text = worker::encode_begin("nvidia", "nvml") + worker::encode_library(r, {});
  auto header = worker::Writer().header().take();
  auto reply = worker::decode_probe_reply(header + text + worker::Writer().line("end").take());
  ASSERT_FALSE(reply.error) << *reply.error << "\n" << text;
  ASSERT_EQ(reply.libraries.size(), 1u);
  const auto& mig = reply.libraries[0].result.devices.at(0).mig;
  ASSERT_EQ(mig.size(), 2u);
  EXPECT_EQ(mig[0].compute_instance, 1u);
  EXPECT_EQ(mig[0].profile, "2c.3g.40gb");
  EXPECT_EQ(mig[0].memory_total_bytes, 40802189312ULL);
  EXPECT_FALSE(mig[1].uuid);

  auto broken = [&](const std::string& records) {
    auto lib = worker::Writer()
                   .line("begin", {"nvidia", "nvml"})
                   .line("library", {"nvidia", "nvml", "loaded"})
                   .line("device", {"0000:2a:00.0"})
                   .take();
    return worker::decode_probe_reply(header + lib + records).error.value_or("(accepted)");
  };
  EXPECT_NE(broken(worker::Writer().line("mig-uuid", {"MIG-x"}).take()).find("before any 'mig'"),
            std::string::npos);
  EXPECT_NE(broken(worker::Writer().line("mig", {"x", "0"}).take()).find("bad MIG instance ids"),
            std::string::npos);
  EXPECT_NE(broken(worker::Writer().line("mig", {"99", "0"}).take()).find("bad MIG instance ids"),
            std::string::npos);
  EXPECT_NE(broken(worker::Writer().line("mig", {"1"}).take()).find("takes 2 field"),
            std::string::npos);
  EXPECT_NE(broken(worker::Writer()
                       .line("mig", {"1", "0"})
                       .line("mig-memory", {"1"})
                       .line("mig-memory", {"2"})
                       .take())
                .find("repeated 'mig-memory'"),
            std::string::npos);
}

}  // namespace anygpu
