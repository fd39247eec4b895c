#include "vendorlib/nvml/nvml.h"

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
            lib.symbol<nvml::RunningProcessesFn>({"nvmlDeviceGetComputeRunningProcesses_v3"})) {}

  nvml::TotalEccFn total_ecc;
  nvml::RemappedRowsFn remapped_rows;
  nvml::RetiredPagesFn retired_pages;
  nvml::PendingStatusFn pending;
  nvml::EventReasonsFn event_reasons;
  nvml::RunningProcessesFn processes;
};

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
