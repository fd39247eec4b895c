// `anygpu host-init`: the plan per vendor, and --apply beneath a root is idempotent — the
// second run finds every file done and rewrites nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "hostprep/host_init.h"
#include "test_support.h"

namespace anygpu {
namespace {

using test::TempDir;

const HostStep& step(const HostPlan& p, const std::string& id) {
  for (const auto& s : p.steps)
    if (s.id == id) return s;
  ADD_FAILURE() << "no step " << id;
  static HostStep none;
  return none;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Stamp {
  long long mtime_ns = 0;
  ino_t inode = 0;
};
Stamp stamp(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return {st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, st.st_ino};
}

TEST(HostInit, PlanForAnNvidiaHost) {
  TempDir tmp;
  test::copy_tree(test::fixture_host("h100-8x"), tmp / "root");
  HostRoot host(HostOptions{tmp / "root", false});
  auto plan = plan_host_init(host, test::probe_root(tmp / "root"));
  EXPECT_EQ(plan.vendor, "nvidia");
  EXPECT_EQ(plan.devices, 8u);
  EXPECT_EQ(step(plan, "marker").state, StepState::todo);
  EXPECT_EQ(step(plan, "marker").path, "/etc/anygpu/host.json");
  EXPECT_EQ(step(plan, "legacy-marker").content, "nvidia\n");
  EXPECT_EQ(step(plan, "container-toolkit").state, StepState::manual);
  EXPECT_NE(step(plan, "container-toolkit").hint.find("nvidia-container-toolkit"),
            std::string::npos);
  EXPECT_EQ(step(plan, "ulimit").path, "/etc/security/limits.d/90-anygpu.conf");
  EXPECT_NE(step(plan, "ulimit").content.find("nofile    65536"), std::string::npos);
  auto cdi = step(plan, "cdi").state;
  EXPECT_TRUE(cdi == StepState::todo || cdi == StepState::blocked) << to_string(cdi);
  // Nothing was written by planning.
  EXPECT_FALSE(host.exists("/etc/anygpu/host.json"));
}

TEST(HostInit, MarkerDescribesTheDevices) {
  const auto& inv = test::fixture_inventory("h100-8x");
  auto json = host_marker_json(inv, "nvidia");
  EXPECT_NE(json.find("\"schema\": \"anygpu.host/v1\""), std::string::npos);
  EXPECT_NE(json.find("\"version\": \"550.90.07\""), std::string::npos);
  EXPECT_NE(json.find("\"pci_bus_id\": \"0000:18:00.0\""), std::string::npos);
  EXPECT_NE(json.find("\"arch\": \"sm_90\""), std::string::npos);
  EXPECT_EQ(json, host_marker_json(inv, "nvidia"));  // stable: no timestamps
}

TEST(HostInit, ApplyTwiceChangesNothingTheSecondTime) {
  TempDir tmp;
  auto root = tmp / "root";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  HostRoot host(HostOptions{root, false});
  auto inv = test::probe_root(root);
  auto first = plan_host_init(host, inv);
  ASSERT_TRUE(apply_host_init(host, first).ok());
  EXPECT_EQ(step(first, "marker").state, StepState::applied);
  EXPECT_EQ(read(root + "/opt/gpu-config/vendor"), "amd\n");
  EXPECT_EQ(read(root + "/etc/anygpu/host.json"), host_marker_json(inv, "amd"));
  std::vector<std::string> files{"/etc/anygpu/host.json", "/opt/gpu-config/vendor",
                                 "/etc/security/limits.d/90-anygpu.conf"};
  if (step(first, "cdi").state == StepState::applied) files.push_back("/etc/cdi/anygpu-amd.yaml");
  std::vector<Stamp> before;
  for (const auto& f : files) before.push_back(stamp(root + f));

  auto second = plan_host_init(host, inv);
  for (const auto& s : second.steps)
    EXPECT_NE(s.state, StepState::todo) << s.id << " is to-do again after --apply";
  ASSERT_TRUE(apply_host_init(host, second).ok());
  for (const auto& s : second.steps) EXPECT_NE(s.state, StepState::applied) << s.id;
  for (size_t i = 0; i < files.size(); ++i) {
    auto after = stamp(root + files[i]);
    EXPECT_EQ(after.mtime_ns, before[i].mtime_ns) << files[i];
    EXPECT_EQ(after.inode, before[i].inode) << files[i] << " was replaced";
  }
}

// A vendor with no container toolkit in the registry (Intel: its /dev/dri nodes are all a
// container needs) has nothing to install, said with its display name.
TEST(HostInit, VendorWithoutAToolkitNeedsNone) {
  HostRoot host(HostOptions{test::fixture_host("intel-max-arc"), false});
  auto plan = plan_host_init(host, test::fixture_inventory("intel-max-arc"));
  EXPECT_EQ(plan.vendor, "intel");
  const auto& s = step(plan, "container-toolkit");
  EXPECT_EQ(s.state, StepState::not_needed);
  EXPECT_EQ(s.why.find("Intel has no container runtime hook to install"), 0u) << s.why;
}

TEST(HostInit, ChangedMarkerIsRewritten) {
  TempDir tmp;
  auto root = tmp / "root";
  test::copy_tree(test::fixture_host("cloud-vm-none"), root);
  test::write_file(root + "/etc/anygpu/host.json", "{\"vendor\": \"nvidia\"}\n");
  HostRoot host(HostOptions{root, false});
  auto plan = plan_host_init(host, test::probe_root(root));
  EXPECT_EQ(plan.vendor, "none");
  EXPECT_EQ(step(plan, "marker").state, StepState::todo);
  EXPECT_EQ(step(plan, "container-toolkit").state, StepState::not_needed);
  EXPECT_EQ(step(plan, "cdi").state, StepState::not_needed);
  ASSERT_TRUE(apply_host_init(host, plan).ok());
  EXPECT_NE(read(root + "/etc/anygpu/host.json").find("\"vendor\": \"none\""), std::string::npos);
}

TEST(HostInit, InstalledToolkitIsDone) {
  TempDir tmp;
  auto root = tmp / "root";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  test::write_file(root + "/usr/bin/nvidia-ctk", "");
  HostRoot host(HostOptions{root, false});
  auto plan = plan_host_init(host, test::probe_root(root));
  EXPECT_EQ(step(plan, "container-toolkit").state, StepState::done);
  EXPECT_EQ(step(plan, "container-toolkit").path, "/usr/bin/nvidia-ctk");
}

TEST(HostInit, UnwritableTargetIsAnErrorNamingThePath) {
  TempDir tmp;
  auto root = tmp / "root";
  test::copy_tree(test::fixture_host("cloud-vm-none"), root);
  test::write_file(root + "/opt/gpu-config", "a file where a directory must go");
  HostRoot host(HostOptions{root, false});
  auto plan = plan_host_init(host, test::probe_root(root));
  auto r = apply_host_init(host, plan);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/opt/gpu-config/vendor"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace anygpu
