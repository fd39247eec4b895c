// NVML (libnvidia-ml.so.1), and Iluvatar's NVML-compatible libixml. Only the types we use are
// declared; their layout follows nvml.h (tests/unit/abi_layout_test.cc checks what it can).
#include "vendorlib/nvml/nvml.h"

#include <cstdio>
#include <cstring>

#include "util/strings.h"
#include "vendorlib/nvml/abi.h"
#include "vendorlib/nvml/api.h"

namespace anygpu {

namespace {

struct NvmlApi : nvml::CoreApi {
  explicit NvmlApi(const DynamicLibrary& lib)
      : CoreApi(lib),
        shutdown(lib.symbol<nvml::ShutdownFn>({"nvmlShutdown"})),
        name(lib.symbol<nvml::StringFn>({"nvmlDeviceGetName"})),
        uuid(lib.symbol<nvml::StringFn>({"nvmlDeviceGetUUID"})),
        memory(lib.symbol<nvml::MemoryFn>({"nvmlDeviceGetMemoryInfo"})),
        capability(lib.symbol<nvml::CapabilityFn>({"nvmlDeviceGetCudaComputeCapability"})),
        driver_version(lib.symbol<nvml::SystemStringFn>({"nvmlSystemGetDriverVersion"})),
        cuda_version(lib.symbol<nvml::IntFn>(
            {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"})) {}

  nvml::ShutdownFn shutdown;
  nvml::StringFn name, uuid;
  nvml::MemoryFn memory;
  nvml::CapabilityFn capability;
  nvml::SystemStringFn driver_version;
  nvml::IntFn cuda_version;
};

std::optional<std::string> device_string(nvml::StringFn fn, nvml::Device dev) {
  if (!fn) return std::nullopt;
  char buf[nvml::kStringBufferSize] = {};
  if (fn(dev, buf, sizeof buf) != nvml::kSuccess) return std::nullopt;
  buf[sizeof buf - 1] = '\0';
  std::string s = buf;
  if (s.empty() || !is_printable_text(s)) return std::nullopt;
  return s;
}

}  // namespace

void nvml::probe(const DynamicLibrary& lib, LibraryResult& result) {
  NvmlApi api(lib);
  auto& report = result.report;
  if (!api.init || !api.count || !api.by_index || !api.pci_info) {
    report.status = LibraryStatus::error;
    report.message =
        "missing one of nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex, "
        "nvmlDeviceGetPciInfo_v3";
    return;
  }
  if (auto r = api.init(); r != nvml::kSuccess) {
    report.status = LibraryStatus::error;
    report.message = "nvmlInit failed: " + api.why(r);
    return;
  }
  report.status = LibraryStatus::loaded;
  if (api.driver_version) {
    char buf[nvml::kStringBufferSize] = {};
    if (api.driver_version(buf, sizeof buf) == nvml::kSuccess) {
      buf[sizeof buf - 1] = '\0';
      if (*buf && is_printable_text(buf)) result.driver_version = buf;
    }
  }
  if (int v = 0; api.cuda_version && api.cuda_version(&v) == nvml::kSuccess && v > 0 && v < 1000000)
    result.runtimes.push_back({std::string(result.report.vendor), "cuda-driver",
                               std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10),
                               result.report.api});
  unsigned count = 0;
  if (auto r = api.count(&count); r != nvml::kSuccess) {
    report.message = "nvmlDeviceGetCount failed: " + api.why(r);
    count = 0;
  }
  for (unsigned i = 0; i < count && i < 1024; ++i) {
    nvml::Device dev = nullptr;
    nvml::PciInfo pci{};
    if (api.by_index(i, &dev) != nvml::kSuccess || api.pci_info(dev, &pci) != nvml::kSuccess)
      continue;
    LibraryDeviceFacts f;
    f.address =
        PciAddress{pci.domain, static_cast<uint8_t>(pci.bus), static_cast<uint8_t>(pci.device), 0};
    f.name = device_string(api.name, dev);
    f.uuid = device_string(api.uuid, dev);
    if (nvml::Memory m{}; api.memory && api.memory(dev, &m) == nvml::kSuccess && m.total > 0)
      f.memory_total_bytes = m.total;
    if (int major = 0, minor = 0; api.capability &&
                                  api.capability(dev, &major, &minor) == nvml::kSuccess &&
                                  major > 0 && major < 100 && minor >= 0 && minor < 10)
      f.arch = "sm_" + std::to_string(major) + std::to_string(minor);
    result.devices.push_back(std::move(f));
  }
  if (api.shutdown) api.shutdown();
}

}  // namespace anygpu
