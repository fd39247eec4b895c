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

struct NvmlApi : nvml::CoreApi, nvml::MigApi {
  explicit NvmlApi(const DynamicLibrary& lib)
      : CoreApi(lib),
        MigApi(lib),
        shutdown(lib.symbol<nvml::ShutdownFn>({"nvmlShutdown"})),
        name(lib.symbol<nvml::StringFn>({"nvmlDeviceGetName"})),
        uuid(lib.symbol<nvml::StringFn>({"nvmlDeviceGetUUID"})),
        memory(lib.symbol<nvml::MemoryFn>({"nvmlDeviceGetMemoryInfo"})),
        capability(lib.symbol<nvml::CapabilityFn>({"nvmlDeviceGetCudaComputeCapability"})),
        driver_version(lib.symbol<nvml::SystemStringFn>({"nvmlSystemGetDriverVersion"})),
        cuda_version(lib.symbol<nvml::IntFn>(
            {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"})),
        nvlink_state(lib.symbol<nvml::NvLinkStateFn>({"nvmlDeviceGetNvLinkState"})),
        nvlink_remote_pci(
            lib.symbol<nvml::NvLinkRemotePciFn>({"nvmlDeviceGetNvLinkRemotePciInfo_v2"})),
        nvlink_remote_type(
            lib.symbol<nvml::NvLinkRemoteTypeFn>({"nvmlDeviceGetNvLinkRemoteDeviceType"})) {}

  nvml::ShutdownFn shutdown;
  nvml::StringFn name, uuid;
  nvml::MemoryFn memory;
  nvml::CapabilityFn capability;
  nvml::SystemStringFn driver_version;
  nvml::IntFn cuda_version;
  nvml::NvLinkStateFn nvlink_state;
  nvml::NvLinkRemotePciFn nvlink_remote_pci;
  nvml::NvLinkRemoteTypeFn nvlink_remote_type;
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

// "NVIDIA H100 80GB HBM3 MIG 1g.10gb" -> "1g.10gb": a MIG device's name ends in its profile
// (Slurm's gpu_nvml.c reads the type from it the same way).
std::optional<std::string> mig_profile(const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  auto at = name->rfind("MIG ");
  if (at == std::string::npos || at + 4 >= name->size()) return std::nullopt;
  auto profile = name->substr(at + 4);
  if (profile.find(' ') != std::string::npos) return std::nullopt;
  return profile;
}

// The MIG devices of `dev` when MIG is on; empty slots (NOT_FOUND) are skipped.
std::vector<LibraryMigFacts> mig_devices(const NvmlApi& api, nvml::Device dev) {
  std::vector<LibraryMigFacts> out;
  unsigned current = 0, pending = 0, max = 0;
  if (!api.has_mig() || api.mig_mode(dev, &current, &pending) != nvml::kSuccess ||
      current != nvml::kMigEnabled || api.max_mig(dev, &max) != nvml::kSuccess)
    return out;
  for (unsigned i = 0; i < max && i < 64; ++i) {
    nvml::Device mig = nullptr;
    LibraryMigFacts m;
    if (api.mig_by_index(dev, i, &mig) != nvml::kSuccess || !mig ||
        api.gi_id(mig, &m.gpu_instance) != nvml::kSuccess ||
        api.ci_id(mig, &m.compute_instance) != nvml::kSuccess)
      continue;
    m.uuid = device_string(api.uuid, mig);
    m.profile = mig_profile(device_string(api.name, mig));
    if (nvml::Memory mem{}; api.memory && api.memory(mig, &mem) == nvml::kSuccess && mem.total)
      m.memory_total_bytes = mem.total;
    out.push_back(std::move(m));
  }
  return out;
}

NvLinkPeer peer_of(nvml::NvLinkDeviceType t) {
  switch (t) {
    case nvml::kNvLinkDeviceGpu:
      return NvLinkPeer::gpu;
    case nvml::kNvLinkDeviceSwitch:
      return NvLinkPeer::nvswitch;
    case nvml::kNvLinkDeviceIbmNpu:
      return NvLinkPeer::ibm_npu;
    default:
      return NvLinkPeer::unknown;
  }
}

// Every active NVLink of `dev`, asked link by link up to NVML_NVLINK_MAX_LINKS like Slurm's
// gpu_nvml.c and NCCL's xml.cc do. A link index the device does not have answers NOT_SUPPORTED
// or INVALID_ARGUMENT (a PCIe-only GPU does so for link 0): no link there. Any other failure
// leaves the device's links unknown, saying which call failed; so does a missing entry point.
NvLinkFacts nvlinks_of(const NvmlApi& api, nvml::Device dev) {
  NvLinkFacts out;
  if (!api.nvlink_state || !api.nvlink_remote_pci) {
    out.unknown = api.nvlink_state ? "no nvmlDeviceGetNvLinkRemotePciInfo_v2 in this NVML"
                                   : "no nvmlDeviceGetNvLinkState in this NVML";
    return out;
  }
  auto fail = [&](const char* call, unsigned link, nvml::Return r) {
    out.active.clear();
    out.unknown = cat({call, " failed on link ", std::to_string(link), ": ", api.why(r)});
    return out;
  };
  for (unsigned link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    nvml::EnableState state = 0;
    auto r = api.nvlink_state(dev, link, &state);
    if (r == nvml::kErrorNotSupported || r == nvml::kErrorInvalidArgument) continue;
    if (r != nvml::kSuccess) return fail("nvmlDeviceGetNvLinkState", link, r);
    if (state != nvml::kFeatureEnabled) continue;
    nvml::PciInfo pci{};
    if (r = api.nvlink_remote_pci(dev, link, &pci); r != nvml::kSuccess)
      return fail("nvmlDeviceGetNvLinkRemotePciInfo_v2", link, r);
    NvLinkEnd end{link, pci.domain, pci.bus, pci.device, NvLinkPeer::unknown};
    if (nvml::NvLinkDeviceType t = 0xff;
        api.nvlink_remote_type && api.nvlink_remote_type(dev, link, &t) == nvml::kSuccess)
      end.peer = peer_of(t);
    out.active.push_back(end);
  }
  return out;
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
    f.mig = mig_devices(api, dev);
    f.nvlink = nvlinks_of(api, dev);
    result.devices.push_back(std::move(f));
  }
  if (api.shutdown) api.shutdown();
}

}  // namespace anygpu
