#include "vendorlib/nvml/nvml.h"

#include <time.h>

#include <map>
#include <vector>

#include "vendorlib/nvml/api.h"
#include "vendorlib/nvml/health_abi.h"

namespace anygpu {

namespace {

struct NvmlHealthApi : nvml::CoreApi {
  explicit NvmlHealthApi(const DynamicLibrary& lib)
      : CoreApi(lib),
        total_ecc(lib.symbol<nvml::TotalEccFn>({"nvmlDeviceGetTotalEccErrors"})),
        remapped_rows(lib.symbol<nvml::RemappedRowsFn>({"nvmlDeviceGetRemappedRows"})),
        retired_pages(lib.symbol<nvml::RetiredPagesFn>({"nvmlDeviceGetRetiredPages"})),
        pending(lib.symbol<nvml::PendingStatusFn>({"nvmlDeviceGetRetiredPagesPendingStatus"})),
        // The older name of the same call (drivers before 535).
        event_reasons(
            lib.symbol<nvml::EventReasonsFn>({"nvmlDeviceGetCurrentClocksEventReasons",
                                              "nvmlDeviceGetCurrentClocksThrottleReasons"})),
        processes(
            lib.symbol<nvml::RunningProcessesFn>({"nvmlDeviceGetComputeRunningProcesses_v3"})),
        utilization(lib.symbol<nvml::ProcessUtilizationFn>({"nvmlDeviceGetProcessUtilization"})) {}

  nvml::TotalEccFn total_ecc;
  nvml::RemappedRowsFn remapped_rows;
  nvml::RetiredPagesFn retired_pages;
  nvml::PendingStatusFn pending;
  nvml::EventReasonsFn event_reasons;
  nvml::RunningProcessesFn processes;
  nvml::ProcessUtilizationFn utilization;
};

// How far back per-process samples count: a few of the driver's sampling periods, so a process
// that stopped working a while ago does not read as busy now.
constexpr unsigned long long kRecentSamplesUs = 5'000'000;

unsigned long long now_us() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1'000'000ull +
         static_cast<unsigned long long>(ts.tv_nsec) / 1000ull;
}

class DeviceReader {
 public:
  DeviceReader(const NvmlHealthApi& api, nvml::Device dev, health::DeviceLibraryFacts& f)
      : api_(api), dev_(dev), f_(f) {}

  void read() {
    ecc(nvml::kVolatileEcc, f_.ecc_volatile);
    ecc(nvml::kAggregateEcc, f_.ecc_aggregate);
    if (unsigned c = 0, u = 0, p = 0, x = 0;
        api_.remapped_rows && ok(api_.remapped_rows(dev_, &c, &u, &p, &x), "remapped rows"))
      f_.remapped_rows = health::RemappedRows{c, u, p != 0, x != 0};
    retired();
    if (unsigned long long bits = 0;
        api_.event_reasons && ok(api_.event_reasons(dev_, &bits), "clocks event reasons"))
      f_.clocks_event_reasons = bits;
    running();
  }

 private:
  // NOT_SUPPORTED is NVML's "this part has no such counter": absent, quietly.
  bool ok(nvml::Return r, const char* what) {
    if (r == nvml::kSuccess) return true;
    if (r != nvml::kErrorNotSupported) f_.errors.push_back(cat({what, ": ", api_.why(r)}));
    return false;
  }

  void ecc(int counter, std::optional<health::EccCounts>& out) {
    if (!api_.total_ecc) return;
    unsigned long long c = 0, u = 0;
    const char* what = counter == nvml::kVolatileEcc ? "volatile ECC" : "aggregate ECC";
    if (ok(api_.total_ecc(dev_, nvml::kMemoryErrorCorrected, counter, &c), what) &&
        ok(api_.total_ecc(dev_, nvml::kMemoryErrorUncorrected, counter, &u), what))
      out = health::EccCounts{c, u};
  }

  // pageCount 0 asks for the count only: SUCCESS (none) or INSUFFICIENT_SIZE with the count.
  std::optional<unsigned> retired_count(int cause) {
    unsigned n = 0;
    auto r = api_.retired_pages(dev_, cause, &n, nullptr);
    if (r == nvml::kSuccess || r == nvml::kErrorInsufficientSize) return n;
    ok(r, "retired pages");
    return std::nullopt;
  }

  void retired() {
    if (!api_.retired_pages) return;
    auto sbe = retired_count(nvml::kRetiredMultipleSbe);
    auto dbe = sbe ? retired_count(nvml::kRetiredDbe) : std::nullopt;
    if (!sbe || !dbe) return;
    health::RetiredPages p{*sbe, *dbe, std::nullopt};
    if (int pending = 0;
        api_.pending && ok(api_.pending(dev_, &pending), "retired pages pending status"))
      p.pending = pending != 0;
    f_.retired_pages = p;
  }

  void running() {
    if (!api_.processes) return;
    // The count first (INSUFFICIENT_SIZE when there are processes), then the list; a process
    // starting in between is the next read's business.
    unsigned n = 0;
    auto r = api_.processes(dev_, &n, nullptr);
    if (r == nvml::kSuccess) {
      f_.processes.emplace();
      return;
    }
    if (r != nvml::kErrorInsufficientSize) {
      ok(r, "running compute processes");
      return;
    }
    n = std::min(n + 8, 65536u);
    std::vector<nvml::ProcessInfo> infos(n);
    r = api_.processes(dev_, &n, infos.data());
    if (!ok(r, "running compute processes")) return;
    auto& list = f_.processes.emplace();
    for (unsigned i = 0; i < n && i < infos.size(); ++i) {
      health::LibraryProcess p;
      p.pid = static_cast<int>(infos[i].pid);
      if (infos[i].usedGpuMemory != nvml::kValueNotAvailable) p.used_bytes = infos[i].usedGpuMemory;
      if (p.pid > 0) list.push_back(p);
    }
    busy(list);
  }

  // Each listed process's mean SM utilisation over the recent samples; a listed process with
  // no sample there kept no SM busy (NVML samples only processes that did). Absent throughout
  // when the call is missing or fails.
  void busy(std::vector<health::LibraryProcess>& list) {
    if (!api_.utilization || list.empty()) return;
    auto since = now_us() - kRecentSamplesUs;
    unsigned n = 0;
    auto r = api_.utilization(dev_, nullptr, &n, since);
    std::vector<nvml::ProcessUtilizationSample> samples;
    if (r == nvml::kErrorInsufficientSize) {
      n = std::min(n + 8, 65536u);
      samples.resize(n);
      r = api_.utilization(dev_, samples.data(), &n, since);
      samples.resize(std::min<size_t>(n, samples.size()));
    }
    if (r == nvml::kErrorNotFound || (r == nvml::kSuccess && samples.empty())) {
      for (auto& p : list) p.busy_percent = 0;
      return;
    }
    if (!ok(r, "per-process utilization")) return;
    std::map<int, std::pair<uint64_t, uint64_t>> sums;  // pid -> (sum of smUtil, samples)
    for (const auto& s : samples)
      if (s.timeStamp > since && s.smUtil <= 100) {
        auto& [sum, count] = sums[static_cast<int>(s.pid)];
        sum += s.smUtil;
        ++count;
      }
    for (auto& p : list) {
      auto it = sums.find(p.pid);
      p.busy_percent =
          it == sums.end() ? 0 : static_cast<uint32_t>(it->second.first / it->second.second);
    }
  }

  const NvmlHealthApi& api_;
  nvml::Device dev_;
  health::DeviceLibraryFacts& f_;
};

}  // namespace

std::optional<std::string> nvml::read_health(const DynamicLibrary& lib, const HealthEmit& emit) {
  NvmlHealthApi api(lib);
  if (!api.init || !api.count || !api.by_index || !api.pci_info)
    return std::string(
        "missing one of nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex, "
        "nvmlDeviceGetPciInfo_v3");
  if (auto r = api.init(); r != nvml::kSuccess) return "nvmlInit failed: " + api.why(r);
  unsigned count = 0;
  if (auto r = api.count(&count); r != nvml::kSuccess)
    return "nvmlDeviceGetCount failed: " + api.why(r);
  for (unsigned i = 0; i < count && i < 1024; ++i) {
    nvml::Device dev = nullptr;
    nvml::PciInfo pci{};
    if (api.by_index(i, &dev) != nvml::kSuccess || api.pci_info(dev, &pci) != nvml::kSuccess)
      continue;
    health::DeviceLibraryFacts f;
    f.api = "nvml";
    DeviceReader(api, dev, f).read();
    emit(PciAddress{pci.domain, static_cast<uint8_t>(pci.bus), static_cast<uint8_t>(pci.device), 0},
         f);
  }
  return std::nullopt;
}

}  // namespace anygpu
