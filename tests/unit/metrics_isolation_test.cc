// Metric samplers' vendor libraries run in a long-lived worker: a mock NVML (tests/mocklibs/
// nvml_metrics.cc) that crashes, aborts, exits, prints or hangs in the middle of a sample,
// after nvmlInit succeeded, loaded through the production path (`anygpu --root FIXTURE metrics
// --json`, the `anygpu` binary as the worker). The command exits normally, stdout is valid
// JSON with every device and its identity, and the library's status carries the signal or
// code. A long-lived collector keeps at most one worker, restarted with backoff; a suspended
// GPU's library is never initialised; a vanished host tree turns every backend down.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "metrics/collector.h"
#include "metrics/prometheus.h"
#include "test_support.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kNvmlPath = "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";

struct Host {
  explicit Host(const std::string& fixture) : root(tmp / "root"), values(tmp / "values") {
    test::copy_tree(test::fixture_host(fixture), root);
    fs::create_directories(fs::path(root + "/" + kNvmlPath).parent_path());
    fs::copy_file(test::mock_library("mock_nvml_metrics.so"), root + "/" + kNvmlPath);
  }
  // Every h100-8x GPU's row, after `fault` (a line such as "segv 3").
  void write(const std::string& fault) const {
    std::string s = fault.empty() ? "" : fault + "\n";
    for (int i = 0; i < 8; ++i)
      s += std::to_string(i) + " " + std::to_string(40 + i) + " 50 300000 1000 1755 1755 2619\n";
    test::write_file(values, s);
  }
  test::TempDir tmp;
  std::string root, values;
};

struct Run {
  int status = -1;
  std::string out;
};

// `env… anygpu ARGS`, stdout captured, stderr discarded.
Run run(const std::string& env, const std::string& args) {
  Run r;
  std::string cmd = env + " " + test::anygpu_binary() + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  r.status = ::pclose(p);
  return r;
}

struct Case {
  const char* name;
  const char* fault;
  const char* status;
  std::optional<int> signal, exit_code;
  const char* says;
};

class FaultyNvmlMetrics : public ::testing::TestWithParam<Case> {};

TEST_P(FaultyNvmlMetrics, MetricsJsonExitsNormallyWithEveryDevice) {
  const auto& c = GetParam();
  Host h("h100-8x");
  h.write(c.fault);
  auto t0 = std::chrono::steady_clock::now();
  auto r = run("MOCK_NVML_METRICS_FILE=" + h.values,
               "--root " + h.root + " --lib-timeout 1500 metrics --json");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.status;
  EXPECT_EQ(WEXITSTATUS(r.status), 0);
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "stdout is not JSON:\n" << r.out;
  ASSERT_EQ(doc["devices"].size(), 8u) << r.out;
  for (const auto& d : doc["devices"]) {
    EXPECT_EQ(d["name"], "NVIDIA H100 80GB HBM3") << "identity from sysfs and procfs stays";
    EXPECT_TRUE(d.contains("uuid"));
  }
  ASSERT_EQ(doc["backends"].size(), 1u);
  const auto& b = doc["backends"][0];
  EXPECT_EQ(b["vendor"], "nvidia");
  ASSERT_TRUE(b.contains("library")) << b.dump();
  const auto& lib = b["library"];
  if (std::string(c.status) == "loaded") {
    EXPECT_TRUE(b["up"].get<bool>()) << b.dump();
    EXPECT_EQ(lib["crashes"], 0);
    EXPECT_EQ(doc["devices"][0]["utilization_ratio"], 0.4);
    std::string warnings = doc["devices"][0]["warnings"].dump();
    EXPECT_NE(warnings.find(c.says), std::string::npos) << warnings;
    return;
  }
  EXPECT_FALSE(b["up"].get<bool>()) << b.dump();
  EXPECT_EQ(lib.value("status", std::string("<absent>")), c.status) << b.dump();
  EXPECT_EQ(lib["crashes"], 1) << b.dump();
  EXPECT_EQ(lib.contains("signal"), c.signal.has_value()) << b.dump();
  if (c.signal) {
    EXPECT_EQ(lib["signal"], *c.signal);
  }
  EXPECT_EQ(lib.contains("exit_code"), c.exit_code.has_value()) << b.dump();
  if (c.exit_code) {
    EXPECT_EQ(lib["exit_code"], *c.exit_code);
  }
  EXPECT_NE(b["error"].get<std::string>().find(c.says), std::string::npos) << b.dump();
  for (const auto& d : doc["devices"]) EXPECT_FALSE(d.contains("utilization_ratio"));
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FaultyNvmlMetrics,
    ::testing::Values(Case{"segv", "segv 3", "crashed", 11, std::nullopt, "SIGSEGV (signal 11)"},
                      Case{"abort", "abort 2", "crashed", 6, std::nullopt, "SIGABRT (signal 6)"},
                      Case{"exit", "exit 1", "exited", std::nullopt, 3, "exited with code 3"},
                      Case{"hang", "hang", "timeout", std::nullopt, std::nullopt, "worker killed"},
                      Case{"fd3", "fd3 1", "protocol-error", std::nullopt, std::nullopt,
                           "bad message"},
                      Case{"print", "print", "loaded", std::nullopt, std::nullopt,
                           "bytes to stdout/stderr (ignored): mock-nvml: sampling on stdout"}),
    [](const auto& info) { return std::string(info.param.name); });

long children() {
  long n = 0;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream in(task.path() / "children");
    std::string pid;
    while (in >> pid) ++n;
  }
  return n;
}

const BackendStatus* nvidia(const MetricsSnapshot& s) {
  for (const auto& b : s.backends)
    if (b.vendor == "nvidia") return &b;
  return nullptr;
}

TEST(MetricsIsolation, CrashingLibraryIsRestartedWithBackoffAndOneWorkerAtMost) {
  Host h("h100-8x");
  h.write("segv 2");  // every worker dies in its first sample
  ::setenv("MOCK_NVML_METRICS_FILE", h.values.c_str(), 1);
  HostOptions o;
  o.root = h.root;
  // A crash ends the call at once: the deadline only has to be out of the way (a loaded
  // sanitizer build can take most of a second to start a worker).
  o.library_timeout = 2000ms;
  long before = children();
  auto c = start_collector(o, {.interval = 50ms, .call_timeout = 2000ms});
  ASSERT_TRUE(c.ok()) << c.error().message;
  long most = 0;
  auto end = std::chrono::steady_clock::now() + 3500ms;
  while (std::chrono::steady_clock::now() < end) {
    most = std::max(most, children() - before);
    std::this_thread::sleep_for(10ms);
  }
  auto s = (*c)->snapshot();
  const auto* b = nvidia(*s);
  ASSERT_TRUE(b && b->library);
  EXPECT_FALSE(b->up);
  EXPECT_EQ(b->library->status, LibraryStatus::crashed);
  EXPECT_EQ(b->library->signal, 11);
  // Starts at 0, ~1 s, ~3 s (backoff 1 s, 2 s): 3 in 3.5 s, not the 70 an interval of 50 ms
  // would spawn.
  EXPECT_GE(b->library->crashes, 2u);
  EXPECT_LE(b->library->crashes, 3u);
  EXPECT_LE(most, 1) << "at most one worker at a time";
  auto text = render_prometheus(*s, std::chrono::system_clock::now());
  EXPECT_NE(text.find("anygpu_backend_crashes_total{vendor=\"nvidia\",source=\"nvml\"} " +
                      std::to_string(b->library->crashes)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("anygpu_backend_up{vendor=\"nvidia\",source=\"nvml\"} 0"), std::string::npos);

  // The library heals: the next restart samples, the backend is up, the failure is cleared.
  h.write("");
  end = std::chrono::steady_clock::now() + 6s;
  do {
    std::this_thread::sleep_for(50ms);
    s = (*c)->snapshot();
  } while (!nvidia(*s)->up && std::chrono::steady_clock::now() < end);
  b = nvidia(*s);
  EXPECT_TRUE(b->up) << b->error.value_or("");
  EXPECT_FALSE(b->library->status);
  (*c)->stop();
  c->reset();
  EXPECT_EQ(children(), before) << "the worker is reaped with its collector";
  ::unsetenv("MOCK_NVML_METRICS_FILE");
}

TEST(MetricsIsolation, VanishedHostTreeTurnsBackendsDown) {
  for (const char* fixture : {"h100-8x", "mi300x-8x"}) {
    SCOPED_TRACE(fixture);
    Host h(fixture);
    h.write("");
    ::setenv("MOCK_NVML_METRICS_FILE", h.values.c_str(), 1);
    HostOptions o;
    o.root = h.root;
    auto c = start_collector(o, {.interval = 50ms, .call_timeout = 1000ms});
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_TRUE((*c)->snapshot()->backends.at(0).up)
        << (*c)->snapshot()->backends.at(0).error.value_or("");
    fs::remove_all(h.root);
    auto end = std::chrono::steady_clock::now() + 3s;
    std::shared_ptr<const MetricsSnapshot> s;
    do {
      std::this_thread::sleep_for(50ms);
      s = (*c)->snapshot();
    } while (s->backends.at(0).up && std::chrono::steady_clock::now() < end);
    const auto& b = s->backends.at(0);
    EXPECT_FALSE(b.up);
    EXPECT_NE(b.error.value_or("").find("gone"), std::string::npos) << b.error.value_or("");
    auto last = b.last_success;
    std::this_thread::sleep_for(200ms);
    EXPECT_EQ((*c)->snapshot()->backends.at(0).last_success, last) << "no fresh samples";
    (*c)->stop();
    ::unsetenv("MOCK_NVML_METRICS_FILE");
  }
}

TEST(MetricsIsolation, LibraryInstalledAfterStartIsPickedUp) {
  // A driver container that installs NVML after the exporter started (under --root /host).
  Host h("h100-8x");
  h.write("");
  std::string lib = h.root + "/" + kNvmlPath, aside = h.tmp / "libnvidia-ml.so.1";
  fs::rename(lib, aside);
  ::setenv("MOCK_NVML_METRICS_FILE", h.values.c_str(), 1);
  HostOptions o;
  o.root = h.root;
  auto c = start_collector(o, {.interval = 50ms, .call_timeout = 1000ms});
  ASSERT_TRUE(c.ok());
  const auto* b = nvidia(*(*c)->snapshot());
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->up);
  EXPECT_NE(b->error.value_or("").find("not found"), std::string::npos) << b->error.value_or("");
  EXPECT_EQ(b->library->crashes, 0u) << "a missing library is not a crash";
  fs::rename(aside, lib);
  auto end = std::chrono::steady_clock::now() + 3s;
  std::shared_ptr<const MetricsSnapshot> s;
  do {
    std::this_thread::sleep_for(50ms);
    s = (*c)->snapshot();
  } while (!nvidia(*s)->up && std::chrono::steady_clock::now() < end);
  EXPECT_TRUE(nvidia(*s)->up) << nvidia(*s)->error.value_or("");
  (*c)->stop();
  ::unsetenv("MOCK_NVML_METRICS_FILE");
}

TEST(MetricsIsolation, SuspendedGpuLibraryIsNeverInitialised) {
  // laptop-hybrid: the Intel iGPU is awake, the only NVIDIA GPU is runtime-suspended.
  Host h("laptop-hybrid");
  h.write("");
  std::string marker = h.tmp / "nvml-init-marker";
  std::string env = "MOCK_NVML_METRICS_FILE=" + h.values + " MOCK_NVML_INIT_MARKER=" + marker;
  for (const char* args : {"metrics --json", "metrics --prometheus", "detect --json"}) {
    SCOPED_TRACE(args);
    auto r = run(env, "--root " + h.root + " " + args);
    ASSERT_TRUE(WIFEXITED(r.status));
    EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.out;
    EXPECT_FALSE(fs::exists(marker)) << "nvmlInit ran for a suspended GPU (" << args << ")";
  }
  auto r = run(env, "--root " + h.root + " metrics --json");
  json doc = json::parse(r.out);
  bool found = false;
  for (const auto& d : doc["devices"])
    if (d["vendor"] == "nvidia") {
      found = true;
      EXPECT_NE(d["warnings"].dump().find("runtime-suspended"), std::string::npos) << d.dump();
    }
  EXPECT_TRUE(found) << r.out;
  // And a long-lived collector (top, the exporter) over several intervals.
  ::setenv("MOCK_NVML_INIT_MARKER", marker.c_str(), 1);
  HostOptions o;
  o.root = h.root;
  auto c = start_collector(o, {.interval = 50ms, .call_timeout = 1000ms});
  ASSERT_TRUE(c.ok());
  std::this_thread::sleep_for(300ms);
  (*c)->stop();
  ::unsetenv("MOCK_NVML_INIT_MARKER");
  EXPECT_FALSE(fs::exists(marker)) << "the collector initialised NVML for a suspended GPU";
}

}  // namespace
}  // namespace anygpu
