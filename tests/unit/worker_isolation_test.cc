// Vendor libraries that crash, abort, exit, print or hang, loaded through the production path
// (a copied fixture root, the mock at the soname the registry names, the `anygpu` binary as the
// library worker): each costs only its own facts, recorded as its status; every sysfs fact
// stays; a long-lived C ABI caller keeps no thread or process per call.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "anygpu.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace anygpu {
namespace {

constexpr const char* kNvmlPath = "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";

struct Host {
  explicit Host(const std::string& fixture) : root(tmp.path() + "/root") {
    test::copy_tree(test::fixture_host(fixture), root);
  }
  void install(const std::string& mock, const std::string& rel) const {
    fs::create_directories(fs::path(root + "/" + rel).parent_path());
    fs::copy_file(test::mock_library(mock), root + "/" + rel, fs::copy_options::overwrite_existing);
  }
  test::TempDir tmp;
  std::string root;
};

const LibraryReport* report(const Inventory& inv, const std::string& vendor,
                            const std::string& api) {
  for (const auto& r : inv.libraries)
    if (r.vendor == vendor && r.api == api) return &r;
  return nullptr;
}

bool warned(const Inventory& inv, const std::string& part) {
  for (const auto& w : inv.diagnostics.warnings())
    if (w.find(part) != std::string::npos) return true;
  return false;
}

std::string dump(const Inventory& inv) {
  std::string s;
  for (const auto& r : inv.libraries)
    s += r.vendor + "/" + r.api + " " + std::string(to_string(r.status)) + " " +
         r.message.value_or("-") + "\n";
  for (const auto& w : inv.diagnostics.warnings()) s += "warning: " + w + "\n";
  return s;
}

// What h100-8x says without any library, which a failing library must not take away.
void expect_sysfs_facts_kept(const Inventory& inv) {
  auto nv = inv.of_vendor("nvidia");
  ASSERT_EQ(nv.size(), 8u);
  for (const auto* d : nv) {
    SCOPED_TRACE(d->pci.address.str());
    EXPECT_EQ(d->name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(d->arch, "sm_90");
    EXPECT_TRUE(d->uuid.has_value());
    ASSERT_TRUE(d->driver.has_value());
    EXPECT_EQ(d->driver->version, "550.90.07");
    EXPECT_EQ(d->status, DeviceStatus::ok);  // a library that failed is not a missing one
    EXPECT_EQ(std::find(d->sources.begin(), d->sources.end(), "nvml"), d->sources.end());
  }
}

struct Case {
  const char* mock;
  const char* status;
  const char* says;  // what the message must name: the signal or the exit code
};

class FailingNvml : public ::testing::TestWithParam<Case> {};

TEST_P(FailingNvml, CostsOnlyItsOwnFacts) {
  const auto& c = GetParam();
  Host host("h100-8x");
  host.install(c.mock, kNvmlPath);
  auto start = std::chrono::steady_clock::now();
  auto inv = test::probe_root(host.root, true, 5000);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  EXPECT_LT(ms, 3000) << "a dead worker is noticed at once, not at the deadline";
  const auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump(inv);
  EXPECT_EQ(to_string(r->status), c.status) << dump(inv);
  ASSERT_TRUE(r->message.has_value());
  EXPECT_NE(r->message->find(c.says), std::string::npos) << dump(inv);
  EXPECT_TRUE(warned(inv, "nvidia nvml: ")) << dump(inv);
  expect_sysfs_facts_kept(inv);
}

INSTANTIATE_TEST_SUITE_P(
    Mocks, FailingNvml,
    ::testing::Values(Case{"mock_nvml_init_segv.so", "crashed", "SIGSEGV (signal 11)"},
                      Case{"mock_nvml_init_abort.so", "crashed", "SIGABRT (signal 6)"},
                      Case{"mock_nvml_ctor_segv.so", "crashed", "SIGSEGV (signal 11)"},
                      Case{"mock_nvml_init_exit.so", "exited", "exited with code 0"}),
    [](const auto& info) {
      std::string n = info.param.mock;
      n = n.substr(10, n.size() - 13);  // mock_nvml_<name>.so
      return n;
    });

TEST(WorkerIsolation, PrintingLibraryStillAnswersAndItsTextIsKeptOut) {
  Host host("h100-8x");
  host.install("mock_nvml_stdout.so", kNvmlPath);
  auto inv = test::probe_root(host.root, true, 5000);
  const auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump(inv);
  EXPECT_EQ(to_string(r->status), "loaded") << dump(inv);
  ASSERT_TRUE(r->message.has_value());
  EXPECT_NE(r->message->find("bytes to stdout/stderr (ignored)"), std::string::npos) << *r->message;
  // All three writes (printf, stderr, raw fd 1) are counted; the first line is quoted.
  EXPECT_TRUE(warned(inv, "wrote 115 bytes to stdout/stderr (ignored): mock-nvml-")) << dump(inv);
  for (const auto* d : inv.of_vendor("nvidia"))
    EXPECT_EQ(d->memory_total_bytes, 85520809984ULL);  // NVML's facts arrived
}

TEST(WorkerIsolation, CrashedLibraryDoesNotStopTheNextOne) {
  // amd-smi crashes on load; rocm-smi, next in the registry, still answers from a new worker.
  Host host("mi300x-8x");
  host.install("mock_nvml_ctor_segv.so", "opt/rocm/lib/libamd_smi.so");
  host.install("mock_rocm_smi_ok.so", "opt/rocm/lib/librocm_smi64.so.6");
  auto inv = test::probe_root(host.root, true, 5000);
  const auto* amd_smi = report(inv, "amd", "amd-smi");
  const auto* rocm_smi = report(inv, "amd", "rocm-smi");
  ASSERT_TRUE(amd_smi && rocm_smi) << dump(inv);
  EXPECT_EQ(to_string(amd_smi->status), "crashed") << dump(inv);
  EXPECT_NE(amd_smi->message.value_or("").find("SIGSEGV"), std::string::npos) << dump(inv);
  EXPECT_EQ(to_string(rocm_smi->status), "loaded") << dump(inv);
  for (const auto* d : inv.of_vendor("amd")) EXPECT_EQ(d->memory_total_bytes, 206141652992ULL);
}

// An executable in the test's temp dir standing in for the worker.
std::string fake_worker(const test::TempDir& dir, const std::string& body) {
  std::string path = dir.path() + "/fake-worker";
  test::write_file(path, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

struct WorkerOverride {
  explicit WorkerOverride(const std::string& path) : saved(std::getenv("ANYGPU_WORKER")) {
    ::setenv("ANYGPU_WORKER", path.c_str(), 1);
  }
  ~WorkerOverride() { ::setenv("ANYGPU_WORKER", saved.c_str(), 1); }
  std::string saved;
};

TEST(WorkerIsolation, GarbageOnTheReplyChannelIsAProtocolError) {
  Host host("h100-8x");
  host.install("mock_nvml_ok.so", kNvmlPath);
  const std::pair<std::string, std::string> cases[] = {
      {"printf 'anygpu-worker 1\\nbegin nvidia nvml\\nexport X=1\\n' >&3", "line 3"},
      {"printf 'anygpu-worker 9\\n' >&3", "version 9"},
      {"printf 'anygpu-worker 1\\nbegin nvidia nvml\\nlibrary nvidia nvml loaded\\nmemory 1\\n"
       "done\\nend\\n' >&3",
       "outside a device"},
  };
  for (const auto& [body, why] : cases) {
    SCOPED_TRACE(body);
    test::TempDir dir;
    WorkerOverride w(fake_worker(dir, body));
    auto inv = test::probe_root(host.root, true, 5000);
    const auto* r = report(inv, "nvidia", "nvml");
    ASSERT_NE(r, nullptr) << dump(inv);
    EXPECT_EQ(to_string(r->status), "protocol-error") << dump(inv);
    EXPECT_NE(r->message.value_or("").find(why), std::string::npos) << dump(inv);
    expect_sysfs_facts_kept(inv);
  }
}

TEST(WorkerIsolation, NoWorkerMeansNoLibraryAndSaysSo) {
  Host host("h100-8x");
  host.install("mock_nvml_ok.so", kNvmlPath);
  WorkerOverride w("/nonexistent/anygpu");
  auto inv = test::probe_root(host.root, true, 5000);
  const auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump(inv);
  EXPECT_EQ(to_string(r->status), "error") << dump(inv);
  EXPECT_NE(r->message.value_or("").find("ANYGPU_WORKER"), std::string::npos) << dump(inv);
  expect_sysfs_facts_kept(inv);  // never loaded in-process as a fallback
}

// Threads of this process, and children (zombies included) of any of its threads.
size_t count_dir(const std::string& path) {
  size_t n = 0;
  if (DIR* d = ::opendir(path.c_str())) {
    while (auto* e = ::readdir(d))
      if (e->d_name[0] != '.') ++n;
    ::closedir(d);
  }
  return n;
}
size_t children() {
  size_t n = 0;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "children");
    std::string pid;
    while (in >> pid) ++n;
  }
  return n;
}

TEST(WorkerIsolation, LongLivedCAbiCallerKeepsNoThreadOrProcessPerCall) {
  Host host("h100-8x");
  host.install("mock_nvml_hang.so", kNvmlPath);
  nlohmann::json opts{{"root", host.root}, {"lib_timeout_ms", 20}};
  auto once = [&] {
    char* doc = anygpu_detect_json(opts.dump().c_str());
    auto j = nlohmann::json::parse(doc);
    anygpu_free(doc);
    return j;
  };
  auto first = once();
  ASSERT_EQ(first["libraries"][0]["status"], "timeout") << first["libraries"].dump();
  size_t threads = count_dir("/proc/self/task"), kids = children();
  for (int i = 0; i < 200; ++i) once();
  EXPECT_EQ(count_dir("/proc/self/task"), threads);
  EXPECT_EQ(children(), kids);
}

TEST(WorkerIsolation, CAbiFindsTheWorkerBesideTheLibrary) {
  // No ANYGPU_WORKER: libanygpu.so (build/) finds build/anygpu next to itself.
  Host host("h100-8x");
  host.install("mock_nvml_init_segv.so", kNvmlPath);
  std::string saved = std::getenv("ANYGPU_WORKER");
  ::unsetenv("ANYGPU_WORKER");
  nlohmann::json opts{{"root", host.root}};
  char* doc = anygpu_detect_json(opts.dump().c_str());
  ::setenv("ANYGPU_WORKER", saved.c_str(), 1);
  auto j = nlohmann::json::parse(doc);
  anygpu_free(doc);
  ASSERT_EQ(j["libraries"].size(), 1u) << j.dump();
  EXPECT_EQ(j["libraries"][0]["status"], "crashed") << j["libraries"].dump();
  EXPECT_NE(j["libraries"][0]["message"].get<std::string>().find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(j["devices"].size(), 8u);
}

}  // namespace
}  // namespace anygpu
