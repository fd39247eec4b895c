#include "gather/gather.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "health/health.h"
#include "health/render.h"
#include "metrics/collector.h"
#include "metrics/render.h"
#include "render/inventory_json.h"
#include "test_support.h"

namespace anygpu {

TEST(Gather, ReplaysToTheSameInventory) {
  for (const char* name :
       {"h100-8x", "mi300x-8x", "laptop-hybrid", "ascend-910b-8x", "intel-max-arc"}) {
    test::TempDir t;
    HostOptions o;
    o.root = test::fixture_host(name);
    auto summary = gather_host(HostRoot(o), t / "copy");
    ASSERT_TRUE(summary) << summary.error().message;
    EXPECT_GT(summary->files, 10u);
    EXPECT_GT(summary->links, 0u);
    auto original = inventory_to_json(test::probe_root(o.root));
    auto replayed = inventory_to_json(test::probe_root(t / "copy"));
    EXPECT_EQ(original, replayed) << name;
  }
}

// What `metrics` reads must travel too: every sample field (values, warnings, absences) of the
// gathered copy equals the original's. Timestamps differ between the two samples.
std::string metric_devices(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  auto snap = sample_once(o, {});
  EXPECT_TRUE(snap) << root;
  if (!snap) return {};
  auto j = metrics_to_json(*snap);
  return j["devices"].dump(1);
}

TEST(Gather, ReplaysToTheSameMetrics) {
  for (const char* name : {"mi300x-8x", "intel-max-arc", "workstation-mixed", "hygon-dcu"}) {
    test::TempDir t;
    HostOptions o;
    o.root = test::fixture_host(name);
    o.load_libraries = false;
    ASSERT_TRUE(gather_host(HostRoot(o), t / "copy")) << name;
    auto original = metric_devices(o.root);
    EXPECT_TRUE(original.find("utilization_ratio") != std::string::npos ||
                original.find("temperature_celsius") != std::string::npos)
        << name << ": the fixture carries metric files\n"
        << original;
    EXPECT_EQ(original, metric_devices(t / "copy")) << name;
  }
}

// What `health` reads must travel too: a gathered failing host reports the same findings, with
// the same evidence, as the host itself.
std::string health_json(const std::string& root) {
  HostRoot host(HostOptions{root, false, std::chrono::milliseconds(1000)});
  auto r = health::evaluate_health(host, test::probe_root(root), {});
  EXPECT_TRUE(r) << root;
  return r ? health::health_to_json(*r).dump(1) : std::string();
}

std::string sysfs_dev(const std::string& root, const std::string& bdf, const std::string& f) {
  return root + "/sys/bus/pci/devices/" + bdf + "/" + f;
}

TEST(Gather, ReplaysToTheSameHealth) {
  test::TempDir t;
  auto nv = t / "nvidia";
  test::copy_tree(test::fixture_host("h100-8x"), nv);
  test::write_file(sysfs_dev(nv, "0000:18:00.0", "aer_dev_fatal"),
                   "Undefined 0\nCmpltTO 1\nTOTAL_ERR_FATAL 1\n");
  test::write_file(sysfs_dev(nv, "0000:2a:00.0", "aer_dev_correctable"),
                   "RxErr 5\nTOTAL_ERR_COR 5\n");
  test::write_file(sysfs_dev(nv, "0000:3a:00.0", "current_link_width"), "8\n");
  test::write_file(sysfs_dev(nv, "0000:9a:00.0", "config"), std::string(256, '\xff'));
  test::write_file(nv + "/proc/uptime", "50.00 100.00\n");
  test::write_file(nv + "/dev/kmsg",
                   "3,100,1000000,-;NVRM: Xid (PCI:0000:ab:00): 79, pid=1, GPU has fallen off the "
                   "bus.\n"
                   "4,104,4000000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal\n");
  auto amd = t / "amd";
  test::copy_tree(test::fixture_host("mi300x-8x"), amd);
  test::write_file(sysfs_dev(amd, "0000:05:00.0", "ras/umc_err_count"), "ue: 2\nce: 7\n");
  test::write_file(sysfs_dev(amd, "0000:26:00.0", "ras/gpu_vram_bad_pages"),
                   "0x00012345 : 0x00001000 : R\n0x00012346 : 0x00001000 : F\n");
  test::write_file(amd + "/dev/kmsg",
                   "3,10,1000,-;amdgpu 0000:46:00.0: amdgpu: GPU reset begin!\n"
                   " SUBSYSTEM=pci\n DEVICE=+pci:0000:46:00.0\n");
  for (const auto& root : {nv, amd}) {
    auto original = health_json(root);
    for (const char* code : {"\"critical\"", "\"warning\""})
      EXPECT_NE(original.find(code), std::string::npos) << root << ": a failing fixture\n"
                                                        << original;
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    auto copy = root + "-copy";
    ASSERT_TRUE(gather_host(HostRoot(o), copy)) << root;
    EXPECT_EQ(original, health_json(copy)) << root;
    auto since = [](const std::string& r) {
      HostRoot host(HostOptions{r, false, std::chrono::milliseconds(1000)});
      health::HealthOptions ho;
      ho.since_seconds = 48;  // /proc/uptime travels: only the SXid at 4 s is this recent
      auto rep = health::evaluate_health(host, test::probe_root(r), ho);
      return rep ? health::health_to_json(*rep).dump() : std::string();
    };
    EXPECT_EQ(since(root), since(copy)) << root;
  }
}

// An ELF object is recorded by name (an empty file behind the same soname link); a file merely
// named like a library is not one.
TEST(Gather, LibrariesAreRecordedByNameOnly) {
  test::TempDir t;
  auto source = t / "source";
  test::copy_tree(test::fixture_host("intel-max-arc"), source);
  auto lib = source + "/usr/lib/x86_64-linux-gnu/libze_loader.so.1.17.6";
  test::write_file(lib, std::string("\x7f"
                                    "ELF\x02\x01\x01",
                                    7) +
                            std::string(1000, 'x'));
  HostOptions o;
  o.root = source;
  ASSERT_TRUE(gather_host(HostRoot(o), t / "copy"));
  struct stat st {};
  ASSERT_EQ(::lstat((t / "copy/usr/lib/x86_64-linux-gnu/libze_loader.so.1").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::stat((t / "copy/usr/lib/x86_64-linux-gnu/libze_loader.so.1.17.6").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(inventory_to_json(test::probe_root(source)),
            inventory_to_json(test::probe_root(t / "copy")));
}

TEST(Gather, RefusesANonEmptyDestination) {
  test::TempDir t;
  test::write_file(t / "dest/keep", "x");
  HostOptions o;
  o.root = test::fixture_host("cloud-vm-none");
  auto r = gather_host(HostRoot(o), t / "dest");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not an empty directory"), std::string::npos);
  struct stat st {};
  EXPECT_EQ(::stat((t / "dest/keep").c_str(), &st), 0);  // nothing lost
}

}  // namespace anygpu
