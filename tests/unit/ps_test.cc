// `anygpu ps`: the fdinfo and cgroup parsers on the kernel's and runtimes' real formats, and
// the scan of a fixture /proc with fd links to device nodes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "ps/cgroup.h"
#include "ps/fdinfo.h"
#include "ps/processes.h"
#include "ps/render.h"
#include "test_support.h"

namespace anygpu::ps {
namespace {

using test::make_symlink;
using test::TempDir;
using test::write_file;

// amdgpu as of Linux 6.8 (amdgpu_fdinfo.c): legacy drm-memory- and the common drm-total-/
// drm-resident- keys side by side.
constexpr const char* kAmdgpuFdinfo =
    "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1085\n"
    "drm-driver:\tamdgpu\ndrm-client-id:\t42\ndrm-pdev:\t0000:05:00.0\npasid:\t32770\n"
    "drm-memory-vram:\t4194304 KiB\ndrm-memory-gtt: \t2048 KiB\ndrm-memory-cpu: \t0 KiB\n"
    "drm-total-vram:\t4194304 KiB\ndrm-resident-vram:\t4194304 KiB\n"
    "drm-engine-gfx:\t123456789 ns\ndrm-engine-compute:\t5000 ns\n";

// xe (xe_drm_client.c): cycles instead of ns, regions named vram0/system.
constexpr const char* kXeFdinfo =
    "drm-driver:\txe\ndrm-client-id:\t7\ndrm-pdev:\t0000:03:00.0\n"
    "drm-total-system:\t16 KiB\ndrm-resident-system:\t16 KiB\n"
    "drm-total-vram0:\t256 MiB\ndrm-resident-vram0:\t200 MiB\n"
    "drm-cycles-rcs:\t28257900\ndrm-total-cycles-rcs:\t7655183225\ndrm-engine-capacity-ccs:\t4\n";

TEST(PsFdinfo, AmdgpuResidentVramAndEngines) {
  auto c = parse_fdinfo(kAmdgpuFdinfo);
  EXPECT_TRUE(c.is_drm());
  EXPECT_EQ(c.driver.value_or(""), "amdgpu");
  EXPECT_EQ(c.pdev.value_or(""), "0000:05:00.0");
  EXPECT_EQ(c.client_id.value_or(0), 42u);
  EXPECT_EQ(c.device_memory().value_or(0), 4194304ull * 1024);
  EXPECT_EQ(c.engine_ns.at("gfx"), 123456789u);
  EXPECT_EQ(c.engine_ns.size(), 2u);
}

TEST(PsFdinfo, XeCyclesAndLocalRegions) {
  auto c = parse_fdinfo(kXeFdinfo);
  EXPECT_EQ(c.device_memory().value_or(0), 200ull << 20);
  EXPECT_EQ(c.engine_cycles.at("rcs"), 28257900u);
  EXPECT_TRUE(c.engine_ns.empty());  // capacity and total-cycles are not activity
}

TEST(PsFdinfo, NotDrmAndMalformedValues) {
  EXPECT_FALSE(parse_fdinfo("pos:\t0\nflags:\t02\nmnt_id:\t1\n").is_drm());
  auto c = parse_fdinfo(
      "drm-driver:\ti915\ndrm-client-id:\tx\ndrm-memory-local0:\t12 GiB\n"
      "drm-engine-render:\t12 ms\ndrm-resident-local0:\t99999999999999999999 KiB\n");
  EXPECT_TRUE(c.is_drm());
  EXPECT_FALSE(c.client_id);
  EXPECT_FALSE(c.device_memory());  // every size was malformed: absent, never zero
  EXPECT_TRUE(c.engine_ns.empty());
}

TEST(PsCgroup, ContainerRuntimesPodsAndSlurm) {
  auto docker = parse_cgroup(
      "0::/system.slice/docker-4f1c2d6a9b8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a."
      "scope\n");
  ASSERT_TRUE(docker.container);
  EXPECT_EQ(docker.container->runtime, "docker");
  EXPECT_EQ(docker.container->id.size(), 64u);
  auto k8s = parse_cgroup(
      "0::/kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod0a1b2c3d_4e5f_6a7b_8c9d_0e1f2a3b4c5d.slice/"
      "cri-containerd-9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0.scope\n");
  ASSERT_TRUE(k8s.pod_uid);
  EXPECT_EQ(*k8s.pod_uid, "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d");
  ASSERT_TRUE(k8s.container);
  EXPECT_EQ(k8s.container->runtime, "containerd");
  auto cgroupfs = parse_cgroup(
      "11:memory:/kubepods/besteffort/pod0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d/"
      "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0\n");
  EXPECT_EQ(cgroupfs.pod_uid.value_or(""), "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d");
  ASSERT_TRUE(cgroupfs.container);
  auto crio = parse_cgroup(
      "0::/kubepods.slice/kubepods-pod11111111_2222_3333_4444_555555555555.slice/"
      "crio-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n");
  EXPECT_EQ(crio.container->runtime, "cri-o");
  auto podman = parse_cgroup(
      "0::/machine.slice/"
      "libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/container\n");
  EXPECT_EQ(podman.container->runtime, "podman");
  auto slurm2 = parse_cgroup("0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_0\n");
  ASSERT_TRUE(slurm2.slurm);
  EXPECT_EQ(slurm2.slurm->job_id, "4242");
  EXPECT_EQ(slurm2.slurm->step.value_or(""), "0");
  auto slurm1 = parse_cgroup("4:memory:/slurm/uid_1000/job_77/step_batch/task_0\n3:pids:/\n");
  EXPECT_EQ(slurm1.slurm->job_id, "77");
  EXPECT_EQ(slurm1.slurm->step.value_or(""), "batch");
}

TEST(PsCgroup, NothingToAttribute) {
  for (const char* text :
       {"0::/\n", "0::/user.slice/user-1000.slice/session-3.scope\n", "",
        "garbage without colons\n", "0::/system.slice/docker-xyz.scope\n",
        "0::/kubepods.slice/kubepods-podnot-a-uid.slice\n", "0::/job_/step_1\n"}) {
    auto a = parse_cgroup(text);
    EXPECT_FALSE(a.container) << text;
    EXPECT_FALSE(a.pod_uid) << text;
    EXPECT_FALSE(a.slurm) << text;
  }
}

// A /proc beneath a fixture copy: fd links to device nodes, fdinfo, status, comm, cgroup.
void add_process(const std::string& root, int pid, const std::string& comm, int uid,
                 const std::vector<std::pair<int, std::string>>& fds,
                 const std::string& cgroup = "0::/\n",
                 const std::map<int, std::string>& fdinfo = {}) {
  auto base = root + "/proc/" + std::to_string(pid);
  write_file(base + "/comm", comm + "\n");
  write_file(base + "/status", "Name:\t" + comm + "\nUid:\t" + std::to_string(uid) + "\t" +
                                   std::to_string(uid) + "\t0\t0\n");
  write_file(base + "/cgroup", cgroup);
  write_file(base + "/fdinfo/.keep", "");
  for (const auto& [fd, target] : fds) {
    make_symlink(target, base + "/fd/" + std::to_string(fd));
    auto info = fdinfo.find(fd);
    write_file(base + "/fdinfo/" + std::to_string(fd),
               info != fdinfo.end() ? info->second : "pos:\t0\nflags:\t02\n");
  }
}

TEST(PsScan, FindsHoldersAttributesThemAndSkipsTheRest) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  write_file(root + "/etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/h:/bin/sh\n");
  const auto& inv = test::fixture_inventory("mi300x-8x");
  const Device* gpu0 = test::find_device(inv, "0000:05:00.0");
  ASSERT_TRUE(gpu0 && gpu0->render_node);
  add_process(
      root, 100, "python3", 1000,
      {{0, "/dev/pts/0"}, {3, "/dev/kfd"}, {4, *gpu0->render_node}, {5, *gpu0->render_node}},
      "0::/system.slice/slurmstepd.scope/job_9/step_0/user/task_0\n",
      {{4, kAmdgpuFdinfo}, {5, kAmdgpuFdinfo}});  // one client behind two fds
  add_process(root, 200, "bash", 0, {{0, "/dev/pts/1"}, {1, "/dev/null"}});
  add_process(root, 300, "nobody-knows", 4242, {{7, *gpu0->render_node}});
  auto r = scan_processes(HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)}), inv);
  ASSERT_EQ(r.processes.size(), 2u);
  const auto& p = r.processes[0];
  EXPECT_EQ(p.pid, 100);
  EXPECT_EQ(p.user.value_or(""), "alice");
  EXPECT_EQ(p.command, "python3");
  EXPECT_EQ(p.devices, std::vector<std::string>{"0000:05:00.0"});
  EXPECT_EQ(p.memory_bytes.value_or(0), 4194304ull * 1024);  // counted once
  ASSERT_TRUE(p.attribution.slurm);
  EXPECT_EQ(p.attribution.slurm->job_id, "9");
  EXPECT_EQ(r.processes[1].user.value_or(""), "4242");  // no passwd entry: the number
  EXPECT_FALSE(r.processes[1].memory_bytes);            // no DRM stats: absent
  auto j = processes_to_json(r.processes, r.hidden);
  EXPECT_EQ(j["schema"], "anygpu.processes/v1");
  EXPECT_EQ(j["processes"][0]["slurm"]["step"], "0");
  EXPECT_FALSE(j["processes"][1].contains("memory_bytes"));
  EXPECT_FALSE(j["processes"][1].contains("container"));
}

// A process is attributed to the partition whose own nodes it holds: an AMD CPX partition's
// render node (not the device's primary one, which ps would otherwise miss), a MIG compute
// instance's CI cap node. A GI cap node two instances share, or the MIG parent, names only
// the device.
TEST(PsScan, HoldersOfAPartitionsOwnNodesAreAttributedToIt) {
  TempDir tmp;
  auto amd_root = tmp / "amd";
  test::copy_tree(test::fixture_host("mi300x-8x-cpx"), amd_root);
  const auto& amd = test::fixture_inventory("mi300x-8x-cpx");
  add_process(amd_root, 10, "rank3", 0, {{3, "/dev/kfd"}, {4, "/dev/dri/renderD131"}});
  add_process(amd_root, 11, "rank0", 0, {{4, "/dev/dri/renderD128"}});
  auto r =
      scan_processes(HostRoot(HostOptions{amd_root, false, std::chrono::milliseconds(1000)}), amd);
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.processes[0].devices, std::vector<std::string>{"0000:05:00.0"});
  EXPECT_EQ(r.processes[0].partitions, std::vector<std::string>{"0000:05:00.0/3"});
  EXPECT_EQ(r.processes[1].partitions, std::vector<std::string>{"0000:05:00.0/0"});
  auto j = processes_to_json(r.processes, r.hidden);
  EXPECT_EQ(j["processes"][0]["partitions"][0], "0000:05:00.0/3");
  auto text = processes_to_text(r.processes, r.hidden);
  EXPECT_NE(text.find(" 0000:05:00.0/3\n"), std::string::npos) << text;

  auto mig_root = tmp / "mig";
  test::copy_tree(test::fixture_host("h100-8x-mig"), mig_root);
  const auto& mig = test::fixture_inventory("h100-8x-mig");
  add_process(mig_root, 20, "ci", 0,
              {{3, "/dev/nvidia1"},
               {4, "/dev/nvidia-caps/nvidia-cap156"},
               {5, "/dev/nvidia-caps/nvidia-cap158"}});
  add_process(mig_root, 21, "gi", 0, {{3, "/dev/nvidia1"}, {4, "/dev/nvidia-caps/nvidia-cap156"}});
  add_process(mig_root, 22, "whole", 0, {{3, "/dev/nvidia4"}});
  r = scan_processes(HostRoot(HostOptions{mig_root, false, std::chrono::milliseconds(1000)}), mig);
  ASSERT_EQ(r.processes.size(), 3u);
  EXPECT_EQ(r.processes[0].partitions, std::vector<std::string>{"0000:2a:00.0/2"});
  EXPECT_TRUE(r.processes[1].partitions.empty());
  EXPECT_EQ(r.processes[1].devices, std::vector<std::string>{"0000:2a:00.0"});
  EXPECT_TRUE(r.processes[2].partitions.empty());
  EXPECT_FALSE(processes_to_json(r.processes, 0)["processes"][2].contains("partitions"));

  // Once NVML has named the instances their ids are MIG UUIDs; the key stays "<bus id>/<index>",
  // the one locks, the table and selection's holders criterion name a partition by.
  auto named = mig;
  for (auto& d : named.devices)
    for (auto& p : d.partitions)
      p.id = "MIG-" + d.pci.address.str() + "-" + std::to_string(p.index);
  r = scan_processes(HostRoot(HostOptions{mig_root, false, std::chrono::milliseconds(1000)}),
                     named);
  ASSERT_EQ(r.processes.size(), 3u);
  EXPECT_EQ(r.processes[0].partitions, std::vector<std::string>{"0000:2a:00.0/2"});
  text = processes_to_text(r.processes, r.hidden);
  EXPECT_NE(text.find(" 0000:2a:00.0/2\n"), std::string::npos) << text;
}

// Many processes (enough for the scan to use its threads): holders in pid order, memory per
// device from each DRM client's drm-pdev.
TEST(PsScan, ManyProcessesKeepPidOrderAndSplitMemoryPerDevice) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  const auto& inv = test::fixture_inventory("mi300x-8x");
  const Device* gpu0 = test::find_device(inv, "0000:05:00.0");
  ASSERT_TRUE(gpu0 && gpu0->render_node);
  for (int pid = 1000; pid < 1600; ++pid) {
    std::vector<std::pair<int, std::string>> fds{{0, "/dev/null"}, {1, "/dev/pts/0"}};
    if (pid % 50 == 7) fds.emplace_back(9, *gpu0->render_node);
    add_process(root, pid, "w", 0, fds, "0::/\n", {{9, kAmdgpuFdinfo}});
  }
  auto r = scan_processes(HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)}), inv);
  ASSERT_EQ(r.processes.size(), 12u);
  for (size_t i = 0; i < r.processes.size(); ++i) {
    EXPECT_EQ(r.processes[i].pid, 1007 + 50 * static_cast<int>(i));
    EXPECT_EQ(r.processes[i].memory_by_device,
              (std::map<std::string, uint64_t>{{"0000:05:00.0", 4194304ull * 1024}}));
  }
  EXPECT_EQ(r.hidden, 0);
}

// A process that exited between the listing of /proc and the read of its fd directory (no
// fd directory left) is skipped, not counted as hidden; one whose fd directory is a plain file
// is skipped too.
TEST(PsScan, VanishedProcessIsSkipped) {
  TempDir tmp;
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  const auto& inv = test::fixture_inventory("mi300x-8x");
  const Device* gpu0 = test::find_device(inv, "0000:05:00.0");
  ASSERT_TRUE(gpu0 && gpu0->render_node);
  add_process(root, 100, "gone", 0, {{4, *gpu0->render_node}});
  std::filesystem::remove_all(root + "/proc/100/fd");
  write_file(root + "/proc/101/fd", "not a directory");
  add_process(root, 102, "here", 0, {{4, *gpu0->render_node}});
  auto r = scan_processes(HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)}), inv);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_EQ(r.processes[0].pid, 102);
  EXPECT_EQ(r.hidden, 0);
}

// Another user's fd directory (mode 0500, owned by root) read by an unprivileged user: counted
// as hidden, the readable holders still listed. Run in a child that drops to nobody, since
// root reads every directory. The fixture lives beneath a world-searchable directory: TMPDIR
// (`make test` makes it with mkdtemp, mode 0700) would keep nobody out of the whole tree.
TEST(PsScan, UnreadableFdDirectoryIsCountedHidden) {
  struct stat shm {};
  bool shm_open_to_all =
      ::stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) && (shm.st_mode & 01777) == 01777;
  TempDir tmp(shm_open_to_all ? "/dev/shm" : "/tmp");
  auto root = tmp / "h";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  const auto& inv = test::fixture_inventory("mi300x-8x");
  const Device* gpu0 = test::find_device(inv, "0000:05:00.0");
  ASSERT_TRUE(gpu0 && gpu0->render_node);
  add_process(root, 100, "secret", 0, {{4, *gpu0->render_node}});
  add_process(root, 200, "open", 0, {{4, *gpu0->render_node}});
  ASSERT_EQ(::chmod((root + "/proc/100/fd").c_str(), 0), 0);
  if (::geteuid() != 0) {
    auto r =
        scan_processes(HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)}), inv);
    ASSERT_EQ(r.processes.size(), 1u);
    EXPECT_EQ(r.hidden, 1);
    return;
  }
  ::chmod(tmp.path().c_str(), 0755);  // mkdtemp's 0700 would keep nobody out of the fixture
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    auto r =
        scan_processes(HostRoot(HostOptions{root, false, std::chrono::milliseconds(1000)}), inv);
    ::_exit(r.hidden == 1 && r.processes.size() == 1 && r.processes[0].pid == 200 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong scan, 3: could not drop to nobody";
}

TEST(PsStale, IdleMemoryHoldersOnly) {
  ProcessInfo busy{1, {}, "a", {"0000:05:00.0"}, 100, {{"gfx", 10}}, {}, {}};
  ProcessInfo idle{2, {}, "b", {"0000:05:00.0"}, 100, {{"gfx", 10}}, {}, {}};
  ProcessInfo no_memory{3, {}, "c", {"0000:05:00.0"}, std::nullopt, {{"gfx", 10}}, {}, {}};
  ProcessScan before{{busy, idle, no_memory}, 0};
  busy.engine_ns["gfx"] = 20;
  ProcessScan after{{busy, idle, no_memory}, 0};
  auto s = stale_processes(before, after);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].pid, 2);
}

}  // namespace
}  // namespace anygpu::ps
