// Every reading says what it could not read: on every fixture host, each source made
// unreadable (absent, mode 000, garbage) is listed unread with its reason, and no device is
// `ok` unless its essential sources were read. The tests may run as root, so files of mode 000
// are read with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped from this thread's effective
// set (root then gets only an owner's permissions, as any user would).
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <set>

#include "health/coverage.h"
#include "health/health.h"
#include "health/render.h"
#include "test_support.h"

namespace anygpu::health {
namespace {

using test::TempDir;
using test::write_file;

// Drops the two capabilities that bypass file modes from this thread's effective set, and
// restores them. Capabilities are per thread; health without libraries reads in this thread.
class WithoutDacOverride {
 public:
  WithoutDacOverride() {
    get(saved_);
    __user_cap_data_struct data[2];
    std::copy(std::begin(saved_), std::end(saved_), data);
    data[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
    set(data);
  }
  ~WithoutDacOverride() { set(saved_); }
  WithoutDacOverride(const WithoutDacOverride&) = delete;
  WithoutDacOverride& operator=(const WithoutDacOverride&) = delete;

 private:
  static void get(__user_cap_data_struct* data) {
    __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
    EXPECT_EQ(::syscall(SYS_capget, &h, data), 0);
  }
  static void set(__user_cap_data_struct* data) {
    __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
    EXPECT_EQ(::syscall(SYS_capset, &h, data), 0);
  }
  __user_cap_data_struct saved_[2]{};
};

const std::set<std::string> kReasons = {
    "permission-denied", "absent",   "malformed", "error",   "suspended", "not-asked",
    "not-listed",        "disabled", "timeout",   "crashed", "exited",    "protocol-error"};

// Discovery ran before the files were made unreadable: health reads what discovery found.
HealthReport evaluate(const std::string& root, const Inventory& inv) {
  HostRoot host(HostOptions{root, false, std::chrono::milliseconds(1000)});
  auto r = evaluate_health(host, inv, {});
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? std::move(r.value()) : HealthReport{};
}

const SourceReading* source(const DeviceHealth& d, std::string_view name) {
  for (const auto& s : d.sources)
    if (s.source == name) return &s;
  return nullptr;
}

std::string pci_dir(const std::string& root, const std::string& bus) {
  return root + "/sys/bus/pci/devices/" + bus;
}

// The invariants of every report: an unread source has a known reason, `ok` only when every
// essential source was read, and the JSON says the same.
void expect_honest(const HealthReport& r, const std::string& what) {
  auto j = health_to_json(r);
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const auto& d = r.devices[i];
    for (const auto& s : d.sources) {
      if (!s.read) {
        EXPECT_TRUE(kReasons.count(s.reason)) << what << " " << s.source << s.reason;
      }
      EXPECT_EQ(s.essential, is_essential(d.vendor, s.source));
    }
    if (d.health() == Health::ok) {
      EXPECT_TRUE(d.covered()) << what << " " << d.pci_bus_id;
    }
    EXPECT_EQ(j["devices"][i]["health"], std::string(to_string(d.health())));
    EXPECT_EQ(j["devices"][i]["sources"].size(), d.sources.size());
  }
}

// Every fixture host with accelerators, copied with an empty (readable) kernel log.
struct Host {
  std::string name, root;
  Inventory inv;
  std::vector<std::string> buses;  // its accelerators'
};

std::vector<Host> fixture_hosts(TempDir& tmp) {
  std::vector<Host> out;
  for (const auto& e : std::filesystem::directory_iterator(test::fixture_host(""))) {
    if (!e.is_directory()) continue;
    Host h{e.path().filename(), tmp / e.path().filename().string(), {}, {}};
    test::copy_tree(e.path(), h.root);
    write_file(h.root + "/dev/kmsg", "");
    h.inv = test::probe_root(h.root);
    for (const auto& d : h.inv.devices) h.buses.push_back(d.pci.address.str());
    if (!h.buses.empty()) out.push_back(std::move(h));
  }
  EXPECT_GE(out.size(), 10u);  // every vendor's fixture
  return out;
}

TEST(HealthSources, AKernelLogThatCannotBeReadIsNamedAndNeverOk) {
  TempDir tmp;
  struct Variant {
    const char* name;
    std::function<void(const std::string& log)> make;
    const char* reason;
  };
  std::vector<Variant> variants = {
      {"absent", [](const std::string& log) { std::filesystem::remove(log); }, "absent"},
      {"mode 000", [](const std::string& log) { ::chmod(log.c_str(), 0); }, "permission-denied"},
      {"garbage", [](const std::string& log) { write_file(log, "no record\n"); }, "malformed"},
  };
  for (auto& h : fixture_hosts(tmp)) {
    auto log = h.root + "/dev/kmsg";
    for (const auto& v : variants) {
      write_file(log, "");
      ::chmod(log.c_str(), 0644);
      v.make(log);
      WithoutDacOverride as_a_user;
      auto r = evaluate(h.root, h.inv);
      auto what = h.name + " kernel log " + v.name;
      expect_honest(r, what);
      ASSERT_EQ(r.sources.size(), 1u);
      EXPECT_EQ(r.sources[0].reason, v.reason) << what << ": " << r.sources[0].detail;
      for (const auto& d : r.devices) {
        auto* s = source(d, "kernel-log");
        ASSERT_TRUE(s) << what;
        EXPECT_FALSE(s->read);
        EXPECT_EQ(s->reason, v.reason);
        // No vendor but Ascend (DCMI) can be ok without its kernel log.
        if (d.vendor != "ascend") {
          EXPECT_NE(d.health(), Health::ok) << what << d.pci_bus_id;
        }
      }
    }
  }
}

TEST(HealthSources, ADeviceWhoseStateCannotBeReadIsNeverOk) {
  TempDir tmp;
  size_t refused = 0;
  for (auto& h : fixture_hosts(tmp)) {
    // Which devices' PCI state is readable as the fixture stands (a suspended device is never
    // read; an integrated GPU without config space or link attributes in the fixture has none).
    std::set<std::string> readable;
    for (const auto& d : evaluate(h.root, h.inv).devices)
      if (source(d, "pcie") && source(d, "pcie")->read) readable.insert(d.pci_bus_id);
    refused += readable.size();
    for (const auto& bus : h.buses)
      for (const auto& e : std::filesystem::directory_iterator(pci_dir(h.root, bus)))
        if (e.is_regular_file() && !e.is_symlink()) ::chmod(e.path().c_str(), 0);
    WithoutDacOverride as_a_user;
    auto r = evaluate(h.root, h.inv);
    expect_honest(r, h.name);
    for (const auto& d : r.devices) {
      auto* pcie = source(d, "pcie");
      ASSERT_TRUE(pcie) << h.name;
      EXPECT_FALSE(pcie->read);
      if (readable.count(d.pci_bus_id)) {
        EXPECT_EQ(pcie->reason, "permission-denied") << h.name << " " << d.pci_bus_id;
        EXPECT_NE(pcie->detail.find(": Permission denied"), std::string::npos) << pcie->detail;
      }
      EXPECT_EQ(d.health(), Health::unknown) << h.name << " " << d.pci_bus_id;
    }
  }
  EXPECT_GE(refused, 24u);  // the three 8-accelerator hosts at least: the check above ran
}

TEST(HealthSources, NothingReadableIsUnknownEverywhere) {
  TempDir tmp;
  for (auto& h : fixture_hosts(tmp)) {
    ::chmod((h.root + "/dev/kmsg").c_str(), 0);
    ::chmod((h.root + "/sys").c_str(), 0);
    WithoutDacOverride as_a_user;
    auto r = evaluate(h.root, h.inv);
    ::chmod((h.root + "/sys").c_str(), 0755);
    expect_honest(r, h.name);
    EXPECT_EQ(r.worst(), Health::unknown) << h.name;
    for (const auto& d : r.devices) {
      EXPECT_TRUE(d.findings.empty()) << h.name;
      EXPECT_FALSE(d.covered());
      for (const auto& s : d.sources) EXPECT_FALSE(s.read) << h.name << " " << s.source;
    }
    auto text = health_to_text(r);
    EXPECT_NE(text.find("not read: kernel-log (permission-denied: /dev/kmsg: Permission denied)"),
              std::string::npos)
        << text;
  }
}

TEST(HealthSources, UnreadableCountersAreNamedButTheDeviceNeedsOnlyItsEssentials) {
  TempDir tmp;
  auto root = tmp / "mi300x";
  test::copy_tree(test::fixture_host("mi300x-8x"), root);
  write_file(root + "/dev/kmsg", "");
  auto dir = pci_dir(root, "0000:05:00.0");
  write_file(dir + "/ras/umc_err_count", "ue: 0\nce: 0\n");
  write_file(dir + "/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
  ::chmod((dir + "/ras").c_str(), 0);
  ::chmod((dir + "/aer_dev_fatal").c_str(), 0);
  auto inv = test::probe_root(root);
  HealthReport r;
  {
    WithoutDacOverride as_a_user;
    r = evaluate(root, inv);
  }
  ::chmod((dir + "/ras").c_str(), 0755);
  expect_honest(r, "mi300x");
  const DeviceHealth* d = nullptr;
  for (const auto& x : r.devices)
    if (x.pci_bus_id == "0000:05:00.0") d = &x;
  ASSERT_TRUE(d);
  EXPECT_EQ(source(*d, "ras")->reason, "permission-denied");
  EXPECT_EQ(source(*d, "aer")->reason, "permission-denied");
  EXPECT_EQ(d->health(), Health::ok);  // pcie and the kernel log were read
  auto text = health_to_text(r);
  EXPECT_NE(text.find("  not read: aer (permission-denied: "), std::string::npos) << text;
}

}  // namespace
}  // namespace anygpu::health
