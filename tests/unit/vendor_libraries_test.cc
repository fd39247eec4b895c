// Vendor management libraries through the production load path: a fixture host is copied, a
// mock library (a real shared object built from tests/mocklibs) is copied to where the loader
// looks for the vendor's library beneath that root, and discovery runs with libraries on.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace fs = std::filesystem;

namespace anygpu {
namespace {

using test::TempDir;

constexpr const char* kNvmlPath = "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";
constexpr const char* kRocmSmiPath = "opt/rocm/lib/librocm_smi64.so.6";
constexpr const char* kZeLoaderDir = "usr/lib/x86_64-linux-gnu";

// h100-8x: bus id and procfs UUID of each GPU (tests/hosts/README.md, section 1).
struct H100 {
  const char* bus;
  const char* uuid;
};
constexpr H100 kH100[] = {
    {"0000:18:00.0", "GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08"},
    {"0000:2a:00.0", "GPU-c1c08ae2-a2ac-f0bd-7f8c-83b81aeb216e"},
    {"0000:3a:00.0", "GPU-8be09f7c-ae13-3913-4055-65df6f5d9946"},
    {"0000:5d:00.0", "GPU-3d3afd79-ea3e-db9e-fc46-8cdd4f3f8334"},
    {"0000:9a:00.0", "GPU-6b68226f-89b7-651a-c8d9-e5288cdd84fc"},
    {"0000:ab:00.0", "GPU-1e7f7a2a-e7ca-31b0-fb27-c2bd3489a93b"},
    {"0000:ba:00.0", "GPU-27c981ac-4696-9bf2-9b7f-9de15e00b462"},
    {"0000:db:00.0", "GPU-91856b45-e77b-d206-d5da-f3796728d02f"},
};
constexpr uint64_t kNvmlMemoryTotal = 85520809984ULL;  // what the mock NVML reports
constexpr uint64_t kRegistryH100Memory = 80ULL << 30;  // data/devices.yaml memory_gib: 80

constexpr const char* kMi300xBuses[] = {"0000:05:00.0", "0000:26:00.0", "0000:46:00.0",
                                        "0000:65:00.0", "0000:85:00.0", "0000:a6:00.0",
                                        "0000:c6:00.0", "0000:e5:00.0"};
constexpr const char* kIntelBuses[] = {"0000:06:00.0", "0000:29:00.0", "0000:9a:00.0"};

// A private copy of a fixture host, so a test can add libraries to it.
struct HostCopy {
  explicit HostCopy(const std::string& fixture) : root(tmp / "root") {
    test::copy_tree(test::fixture_host(fixture), root);
  }
  // Copies a built mock library to `rel` beneath the root (a regular file: the loader must not
  // be able to reach anything outside the root).
  std::string install(const std::string& mock, const std::string& rel) const {
    std::string src = test::mock_library(mock);
    EXPECT_TRUE(fs::is_regular_file(src)) << src << " was not built";
    std::string dest = root + "/" + rel;
    fs::create_directories(fs::path(dest).parent_path());
    fs::copy_file(src, dest, fs::copy_options::overwrite_existing);
    return dest;
  }
  TempDir tmp;
  std::string root;
};

std::vector<const LibraryReport*> reports(const Inventory& inv, const std::string& vendor) {
  std::vector<const LibraryReport*> out;
  for (const auto& r : inv.libraries)
    if (r.vendor == vendor) out.push_back(&r);
  return out;
}

const LibraryReport* report(const Inventory& inv, const std::string& vendor,
                            const std::string& api) {
  for (const auto& r : inv.libraries)
    if (r.vendor == vendor && r.api == api) return &r;
  return nullptr;
}

std::string dump_libraries(const Inventory& inv) {
  std::ostringstream s;
  for (const auto& r : inv.libraries)
    s << "  {" << r.vendor << ", " << r.api << ", " << to_string(r.status) << ", "
      << r.path.value_or("-") << ", " << r.message.value_or("-") << "}\n";
  s << "warnings:\n";
  for (const auto& w : inv.diagnostics.warnings()) s << "  " << w << "\n";
  return s.str();
}

bool has_warning(const Inventory& inv, const std::string& part) {
  auto warnings = inv.diagnostics.warnings();
  return std::any_of(warnings.begin(), warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

bool has_source(const Device& d, const std::string& s) {
  return std::find(d.sources.begin(), d.sources.end(), s) != d.sources.end();
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<const RuntimeComponent*> runtimes(const Inventory& inv, const std::string& vendor,
                                              const std::string& component) {
  std::vector<const RuntimeComponent*> out;
  for (const auto& r : inv.runtimes)
    if (r.vendor == vendor && r.component == component) out.push_back(&r);
  return out;
}

// What h100-8x says without any library: procfs/sysfs and the registry.
void expect_h100_sysfs_facts(const Inventory& inv) {
  ASSERT_EQ(inv.of_vendor("nvidia").size(), 8u);
  int index = 0;
  for (const auto& g : kH100) {
    SCOPED_TRACE(g.bus);
    const Device* d = test::find_device(inv, g.bus);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->vendor, "nvidia");
    EXPECT_EQ(d->index, index);
    EXPECT_EQ(d->name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(d->uuid, g.uuid);
    EXPECT_EQ(d->arch, "sm_90");
    EXPECT_EQ(d->pci.vendor_id, 0x10de);
    EXPECT_EQ(d->pci.device_id, 0x2330);
    ASSERT_TRUE(d->driver.has_value());
    EXPECT_EQ(d->driver->name, "nvidia");
    EXPECT_EQ(d->driver->version, "550.90.07");
    EXPECT_EQ(d->numa_node, index < 4 ? 0 : 1);
    EXPECT_EQ(d->minor, index);
    EXPECT_TRUE(has_source(*d, "sysfs"));
    ++index;
  }
}

// ---------------------------------------------------------------------------------------------
// NVML

TEST(VendorLibraries, NvmlLoadedFromBeneathTheRootFillsLibraryFacts) {
  HostCopy host("h100-8x");
  std::string lib = host.install("mock_nvml_ok.so", kNvmlPath);
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto nv = reports(inv, "nvidia");
  ASSERT_EQ(nv.size(), 1u) << dump_libraries(inv);
  EXPECT_EQ(nv[0]->api, "nvml");
  EXPECT_EQ(to_string(nv[0]->status), "loaded") << dump_libraries(inv);
  ASSERT_TRUE(nv[0]->path.has_value());
  EXPECT_EQ(*nv[0]->path, lib);
  EXPECT_TRUE(starts_with(*nv[0]->path, host.root + "/")) << *nv[0]->path;
  EXPECT_FALSE(nv[0]->message.has_value()) << *nv[0]->message;
  EXPECT_FALSE(has_warning(inv, "nvml")) << dump_libraries(inv);

  expect_h100_sysfs_facts(inv);
  for (const auto& g : kH100) {
    SCOPED_TRACE(g.bus);
    const Device* d = test::find_device(inv, g.bus);
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(has_source(*d, "nvml"));
    EXPECT_EQ(d->status, DeviceStatus::ok);
    // Only NVML knows the usable memory: not the registry's nominal 80 GiB.
    EXPECT_EQ(d->memory_total_bytes, kNvmlMemoryTotal);
    EXPECT_NE(d->memory_total_bytes, kRegistryH100Memory);
  }

  // CUDA driver API version from nvmlSystemGetCudaDriverVersion (12040), not derived from the
  // kernel module version.
  auto cuda = runtimes(inv, "nvidia", "cuda-driver");
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_EQ(cuda[0]->version, "12.4");
  EXPECT_EQ(cuda[0]->source, "nvml");
}

TEST(VendorLibraries, NvmlUuidFillsInWhenProcfsHasNone) {
  HostCopy host("h100-8x");
  host.install("mock_nvml_ok.so", kNvmlPath);
  // GPU 2's procfs `information` loses its UUID line: NVML must supply it.
  std::string info = host.root + "/proc/driver/nvidia/gpus/0000:3a:00.0/information";
  std::ifstream in(info);
  ASSERT_TRUE(in) << info;
  std::string line, kept;
  while (std::getline(in, line))
    if (line.rfind("GPU UUID:", 0) != 0) kept += line + "\n";
  in.close();
  test::write_file(info, kept);

  auto sysfs_only = test::probe_root(host.root, /*load_libraries=*/false);
  const Device* before = test::find_device(sysfs_only, "0000:3a:00.0");
  ASSERT_NE(before, nullptr);
  EXPECT_FALSE(before->uuid.has_value()) << *before->uuid;

  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  const Device* d = test::find_device(inv, "0000:3a:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->uuid, "GPU-8be09f7c-ae13-3913-4055-65df6f5d9946");
  EXPECT_TRUE(has_source(*d, "nvml"));
  // The others keep the procfs UUID (the same GPU, so the same value).
  EXPECT_EQ(test::find_device(inv, "0000:18:00.0")->uuid, kH100[0].uuid);
}

TEST(VendorLibraries, NvmlUnversionedNameInLib64IsFound) {
  // The second soname in a later standard directory, as on RHEL with the devel symlink only.
  HostCopy host("h100-8x");
  std::string lib = host.install("mock_nvml_ok.so", "usr/lib64/libnvidia-ml.so");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "loaded") << dump_libraries(inv);
  EXPECT_EQ(r->path, lib);
  EXPECT_EQ(test::find_device(inv, "0000:db:00.0")->memory_total_bytes, kNvmlMemoryTotal);
}

TEST(VendorLibraries, NvmlInitErrorIsReportedAndSysfsFactsStay) {
  HostCopy host("h100-8x");
  std::string lib = host.install("mock_nvml_init_error.so", kNvmlPath);
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "error");
  EXPECT_EQ(r->path, lib);
  ASSERT_TRUE(r->message.has_value());
  EXPECT_NE(r->message->find("Driver Not Loaded"), std::string::npos) << *r->message;
  EXPECT_NE(r->message->find("9"), std::string::npos) << *r->message;
  EXPECT_TRUE(has_warning(inv, "Driver Not Loaded")) << dump_libraries(inv);
  EXPECT_TRUE(has_warning(inv, "nvidia")) << dump_libraries(inv);

  expect_h100_sysfs_facts(inv);
  for (const auto* d : inv.of_vendor("nvidia")) {
    SCOPED_TRACE(d->pci.address.str());
    EXPECT_FALSE(has_source(*d, "nvml"));
    // The library is there (it failed): not "library-missing".
    EXPECT_EQ(d->status, DeviceStatus::ok);
    // No NVML memory: the registry's nominal value at most.
    EXPECT_NE(d->memory_total_bytes, kNvmlMemoryTotal);
  }
  auto cuda = runtimes(inv, "nvidia", "cuda-driver");
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_NE(cuda[0]->source, "nvml");  // derived from the kernel module version instead
  EXPECT_EQ(cuda[0]->version, "12.4");
}

TEST(VendorLibraries, NvmlMissingSymbolIsAnError) {
  HostCopy host("h100-8x");
  std::string lib = host.install("mock_nvml_missing_symbol.so", kNvmlPath);
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "error");
  EXPECT_EQ(r->path, lib);
  ASSERT_TRUE(r->message.has_value());
  EXPECT_NE(r->message->find("nvmlDeviceGetPciInfo_v3"), std::string::npos) << *r->message;
  EXPECT_TRUE(has_warning(inv, "nvmlDeviceGetPciInfo_v3")) << dump_libraries(inv);

  expect_h100_sysfs_facts(inv);
  for (const auto* d : inv.of_vendor("nvidia")) {
    EXPECT_FALSE(has_source(*d, "nvml"));
    EXPECT_EQ(d->status, DeviceStatus::ok);
  }
}

TEST(VendorLibraries, NvmlHangHitsTheDeadline) {
  // The mock blocks forever in nvmlInit_v2. The probe must give up at its deadline; the
  // abandoned worker stays blocked in the mock for the rest of this process (expected).
  HostCopy host("h100-8x");
  host.install("mock_nvml_hang.so", kNvmlPath);
  auto start = std::chrono::steady_clock::now();
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 300);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  EXPECT_LT(ms, 2000) << "probe took " << ms << " ms with a 300 ms deadline";
  EXPECT_GE(ms, 250) << "the deadline was not waited for";

  auto nv = reports(inv, "nvidia");
  ASSERT_EQ(nv.size(), 1u) << dump_libraries(inv);
  EXPECT_EQ(to_string(nv[0]->status), "timeout");
  ASSERT_TRUE(nv[0]->message.has_value());
  EXPECT_NE(nv[0]->message->find("300 ms"), std::string::npos) << *nv[0]->message;
  EXPECT_TRUE(has_warning(inv, "did not answer within 300 ms")) << dump_libraries(inv);

  expect_h100_sysfs_facts(inv);
  for (const auto* d : inv.of_vendor("nvidia")) {
    EXPECT_FALSE(has_source(*d, "nvml"));
    EXPECT_EQ(d->status, DeviceStatus::ok);  // a library that hangs is not a missing one
  }
}

TEST(VendorLibraries, NoNvmlMarksNvidiaLibraryMissing) {
  HostCopy host("h100-8x");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* r = report(inv, "nvidia", "nvml");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "missing");
  EXPECT_FALSE(r->path.has_value()) << *r->path;
  ASSERT_TRUE(r->message.has_value());
  EXPECT_NE(r->message->find("libnvidia-ml.so.1"), std::string::npos) << *r->message;

  ASSERT_EQ(inv.of_vendor("nvidia").size(), 8u);
  for (const auto* d : inv.of_vendor("nvidia")) {
    SCOPED_TRACE(d->pci.address.str());
    // NVML ships with the driver (required: true): bound driver, no library.
    EXPECT_EQ(d->status, DeviceStatus::library_missing);
    EXPECT_EQ(to_string(d->status), "library-missing");
    EXPECT_EQ(d->name, "NVIDIA H100 80GB HBM3");
    EXPECT_FALSE(has_source(*d, "nvml"));
  }
}

TEST(VendorLibraries, NoRocmSmiIsNotLibraryMissing) {
  HostCopy host("mi300x-8x");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  auto amd = reports(inv, "amd");
  ASSERT_EQ(amd.size(), 2u) << dump_libraries(inv);
  EXPECT_EQ(amd[0]->api, "amd-smi");
  EXPECT_EQ(amd[1]->api, "rocm-smi");
  for (const auto* r : amd) EXPECT_EQ(to_string(r->status), "missing") << dump_libraries(inv);
  ASSERT_EQ(inv.of_vendor("amd").size(), 8u);
  for (const auto* d : inv.of_vendor("amd")) {
    SCOPED_TRACE(d->pci.address.str());
    EXPECT_EQ(d->status, DeviceStatus::ok);  // both AMD libraries are optional
    EXPECT_FALSE(has_source(*d, "rocm-smi"));
  }
}

TEST(VendorLibraries, NoLibsLoadsNothingEvenWhenPresent) {
  HostCopy host("h100-8x");
  host.install("mock_nvml_ok.so", kNvmlPath);
  auto inv = test::probe_root(host.root, /*load_libraries=*/false);
  EXPECT_TRUE(inv.libraries.empty()) << dump_libraries(inv);
  expect_h100_sysfs_facts(inv);
  for (const auto* d : inv.of_vendor("nvidia")) {
    SCOPED_TRACE(d->pci.address.str());
    EXPECT_EQ(d->status, DeviceStatus::ok);  // --no-libs: nobody looked, so not "missing"
    EXPECT_FALSE(has_source(*d, "nvml"));
    EXPECT_NE(d->memory_total_bytes, kNvmlMemoryTotal);
  }
  auto cuda = runtimes(inv, "nvidia", "cuda-driver");
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_NE(cuda[0]->source, "nvml");
}

// ---------------------------------------------------------------------------------------------
// ROCm SMI

TEST(VendorLibraries, RocmSmiLoadedThroughOptRocmLink) {
  HostCopy host("mi300x-8x");
  // opt/rocm links to rocm-6.2.4 inside the root, as on a real install.
  ASSERT_TRUE(fs::is_symlink(host.root + "/opt/rocm"));
  std::string lib = host.install("mock_rocm_smi_ok.so", kRocmSmiPath);
  ASSERT_TRUE(fs::exists(host.root + "/opt/rocm-6.2.4/lib/librocm_smi64.so.6"));
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* amd_smi = report(inv, "amd", "amd-smi");
  ASSERT_NE(amd_smi, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(amd_smi->status), "missing");
  auto* r = report(inv, "amd", "rocm-smi");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "loaded") << dump_libraries(inv);
  ASSERT_TRUE(r->path.has_value());
  EXPECT_TRUE(starts_with(*r->path, host.root + "/")) << *r->path;
  EXPECT_EQ(fs::canonical(*r->path), fs::canonical(lib));
  EXPECT_TRUE(inv.diagnostics.warnings().empty()) << dump_libraries(inv);

  ASSERT_EQ(inv.of_vendor("amd").size(), 8u);
  for (const auto* bus : kMi300xBuses) {
    SCOPED_TRACE(bus);
    const Device* d = test::find_device(inv, bus);
    ASSERT_NE(d, nullptr);
    // Every BDF id the library reports (in KFD order) matched its PCI function.
    EXPECT_TRUE(has_source(*d, "rocm-smi"));
    EXPECT_TRUE(has_source(*d, "sysfs"));
    EXPECT_EQ(d->name, "AMD Instinct MI300X");
    EXPECT_EQ(d->memory_total_bytes, 206141652992ULL);
    EXPECT_EQ(d->status, DeviceStatus::ok);
    EXPECT_EQ(d->arch, "gfx942");
  }
}

// ---------------------------------------------------------------------------------------------
// Level Zero, and libraries outside the root

TEST(VendorLibraries, HostLibraryIsNotUsedUnderARoot) {
  // This machine may have its own libze_loader.so.1; a root that has none must not see it.
  HostCopy host("intel-max-arc");
  fs::remove(host.root + "/" + kZeLoaderDir + "/libze_loader.so.1");
  fs::remove(host.root + "/" + kZeLoaderDir + "/libze_loader.so.1.17.6");
  bool host_has_it = fs::exists("/usr/lib/x86_64-linux-gnu/libze_loader.so.1");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* r = report(inv, "intel", "level-zero");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "missing") << dump_libraries(inv);
  EXPECT_FALSE(r->path.has_value()) << *r->path;
  for (const auto* d : inv.of_vendor("intel")) {
    EXPECT_FALSE(has_source(*d, "level-zero"));
    EXPECT_EQ(d->status, DeviceStatus::ok);  // Level Zero is optional
  }
  EXPECT_TRUE(runtimes(inv, "intel", "level-zero").empty());
  if (!host_has_it) GTEST_SKIP() << "checked, but this host has no libze_loader.so.1 to leak";
}

TEST(VendorLibraries, EmptyLevelZeroStubFailsGracefully) {
  // intel-max-arc ships libze_loader.so.1 -> libze_loader.so.1.17.6, an empty file.
  HostCopy host("intel-max-arc");
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* r = report(inv, "intel", "level-zero");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "error") << dump_libraries(inv);
  ASSERT_TRUE(r->message.has_value());
  // dlerror() names the file beneath the root, never the host's own loader.
  EXPECT_NE(r->message->find(host.root), std::string::npos) << *r->message;
  EXPECT_EQ(r->message->find("libze_loader.so.1.8"), std::string::npos) << *r->message;
  EXPECT_TRUE(has_warning(inv, "level-zero")) << dump_libraries(inv);

  ASSERT_EQ(inv.of_vendor("intel").size(), 3u);
  for (const auto* bus : kIntelBuses) {
    SCOPED_TRACE(bus);
    const Device* d = test::find_device(inv, bus);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->status, DeviceStatus::ok);
    EXPECT_TRUE(has_source(*d, "sysfs"));
    EXPECT_FALSE(has_source(*d, "level-zero"));
    ASSERT_TRUE(d->driver.has_value());
    EXPECT_FALSE(d->driver->version.has_value());  // in-tree drivers: no version
  }
}

TEST(VendorLibraries, LevelZeroSysmanLoaded) {
  // The fixture's soname link, now to a working (mock) loader.
  HostCopy host("intel-max-arc");
  std::string lib =
      host.install("mock_ze_ok.so", std::string(kZeLoaderDir) + "/libze_loader.so.1.17.6");
  ASSERT_TRUE(fs::is_symlink(host.root + "/" + kZeLoaderDir + "/libze_loader.so.1"));
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);

  auto* r = report(inv, "intel", "level-zero");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "loaded") << dump_libraries(inv);
  ASSERT_TRUE(r->path.has_value());
  EXPECT_TRUE(starts_with(*r->path, host.root + "/")) << *r->path;
  EXPECT_EQ(fs::canonical(*r->path), fs::canonical(lib));
  EXPECT_TRUE(inv.diagnostics.warnings().empty()) << dump_libraries(inv);

  const Device* arc = test::find_device(inv, "0000:06:00.0");
  ASSERT_NE(arc, nullptr);
  EXPECT_EQ(arc->name, "Intel(R) Arc(TM) A770 Graphics");
  for (const auto* bus : {"0000:29:00.0", "0000:9a:00.0"}) {
    const Device* d = test::find_device(inv, bus);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->name, "Intel(R) Data Center GPU Max 1550");
  }
  for (const auto* d : inv.of_vendor("intel")) {
    SCOPED_TRACE(d->pci.address.str());
    EXPECT_TRUE(has_source(*d, "level-zero"));
    ASSERT_TRUE(d->driver.has_value());
    // Sysman says "unknown" for in-tree drivers: still no version, as without the library.
    EXPECT_FALSE(d->driver->version.has_value()) << *d->driver->version;
    EXPECT_EQ(d->status, DeviceStatus::ok);
  }
  auto ze = runtimes(inv, "intel", "level-zero");
  ASSERT_EQ(ze.size(), 1u);
  EXPECT_EQ(ze[0]->version, "1.17.6");  // from the soname link's target
}

TEST(VendorLibraries, OldLevelZeroLoaderIsFoundNotAnError) {
  // Debian 12's real loader (1.8.0, spec 1.4) has zeInit but no zesInit.
  const std::string real = "/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0";
  if (!fs::exists(real)) GTEST_SKIP() << "Debian package libze1 is not installed";
  HostCopy host("intel-max-arc");
  std::string dest = host.root + "/" + kZeLoaderDir + "/libze_loader.so.1.17.6";
  fs::copy_file(real, dest, fs::copy_options::overwrite_existing);
  auto inv = test::probe_root(host.root, /*load_libraries=*/true, 5000);
  auto* r = report(inv, "intel", "level-zero");
  ASSERT_NE(r, nullptr) << dump_libraries(inv);
  EXPECT_EQ(to_string(r->status), "found") << dump_libraries(inv);
  ASSERT_TRUE(r->message.has_value());
  EXPECT_NE(r->message->find("zesInit"), std::string::npos) << *r->message;
  EXPECT_FALSE(has_warning(inv, "level-zero")) << dump_libraries(inv);
  EXPECT_EQ(inv.of_vendor("intel").size(), 3u);
}

}  // namespace
}  // namespace anygpu
