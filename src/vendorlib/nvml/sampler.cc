// NVIDIA metrics through NVML (and NVML-compatible libraries such as Iluvatar's libixml).
// NvmlSampler runs only inside a long-lived library worker (src/worker/), which opens and
// initialises the library once and keeps it; in anygpu, the library backend
// (metrics/library_backend.cc) adds identity and turns a worker that crashed, exited or hung
// into a backend that is down (restarted with backoff).
#include "vendorlib/nvml/nvml.h"

#include <map>

#include "util/strings.h"
#include "vendorlib/library_sampler.h"
#include "vendorlib/nvml/api.h"
#include "vendorlib/nvml/metrics_abi.h"

namespace anygpu {

namespace {

struct NvmlMetricsApi : nvml::CoreApi, nvml::MigApi {
  explicit NvmlMetricsApi(const DynamicLibrary& lib)
      : CoreApi(lib),
        MigApi(lib),
        utilization(lib.symbol<nvml::UtilizationFn>({"nvmlDeviceGetUtilizationRates"})),
        memory(lib.symbol<nvml::MemoryFn>({"nvmlDeviceGetMemoryInfo"})),
        temperature(lib.symbol<nvml::TemperatureFn>({"nvmlDeviceGetTemperature"})),
        power(lib.symbol<nvml::PowerFn>({"nvmlDeviceGetPowerUsage"})),
        power_limit(lib.symbol<nvml::PowerFn>({"nvmlDeviceGetEnforcedPowerLimit"})),
        energy(lib.symbol<nvml::EnergyFn>({"nvmlDeviceGetTotalEnergyConsumption"})),
        clock(lib.symbol<nvml::ClockFn>({"nvmlDeviceGetClockInfo"})) {}

  nvml::UtilizationFn utilization;
  nvml::MemoryFn memory;
  nvml::TemperatureFn temperature;
  nvml::PowerFn power, power_limit;
  nvml::EnergyFn energy;
  nvml::ClockFn clock;
};

class NvmlSampler final : public LibrarySampler {
 public:
  Result<bool> open(const DynamicLibrary& lib) override {
    api_ = std::make_unique<NvmlMetricsApi>(lib);
    if (!api_->init || !api_->count || !api_->by_index || !api_->pci_info)
      return host_error(lib.loaded_from() +
                        ": missing nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex or "
                        "nvmlDeviceGetPciInfo_v3");
    if (auto r = api_->init(); r != nvml::kSuccess)
      return host_error("nvmlInit failed: " + api_->why(r));
    return true;
  }

  std::vector<DeviceSample> sample(const std::vector<SampleTarget>& targets) override {
    // NVML's index order is its own: match its devices to ours by PCI address.
    std::map<PciAddress, nvml::Device> handles;
    unsigned count = 0;
    std::string count_error;
    if (auto r = api_->count(&count); r != nvml::kSuccess) {
      count_error = "nvmlDeviceGetCount failed: " + api_->why(r);
      count = 0;
    }
    for (unsigned i = 0; i < count && i < 1024; ++i) {
      nvml::Device dev = nullptr;
      nvml::PciInfo pci{};
      if (api_->by_index(i, &dev) != nvml::kSuccess || api_->pci_info(dev, &pci) != nvml::kSuccess)
        continue;
      handles[PciAddress{pci.domain, static_cast<uint8_t>(pci.bus),
                         static_cast<uint8_t>(pci.device), 0}] = dev;
    }
    std::vector<DeviceSample> out(targets.size());
    for (size_t i = 0; i < targets.size(); ++i) {
      if (targets[i].suspended) continue;  // never woken to be looked at
      const auto& a = targets[i].address;
      auto it = handles.find(PciAddress{a.domain, a.bus, a.device, 0});
      if (!count_error.empty()) {
        out[i].warnings.push_back(count_error);
      } else if (it == handles.end()) {
        out[i].warnings.push_back("nvml does not list this device");
      } else {
        sample_device(it->second, out[i]);
      }
    }
    return out;
  }

 private:
  // NOT_SUPPORTED is how NVML says "this part has no such sensor": absent, quietly.
  bool ok(nvml::Return r, const char* what, DeviceSample& s) const {
    if (r == nvml::kSuccess) return true;
    if (r != nvml::kErrorNotSupported) s.warnings.push_back(cat({what, ": ", api_->why(r)}));
    return false;
  }

  void sample_device(nvml::Device dev, DeviceSample& s) const {
    const auto& a = *api_;
    if (nvml::Utilization u{}; a.utilization && ok(a.utilization(dev, &u), "utilization", s)) {
      if (u.gpu <= 100) s.utilization_ratio = u.gpu / 100.0;
    }
    if (nvml::Memory m{};
        a.memory && ok(a.memory(dev, &m), "memory", s) && m.total > 0 && m.used <= m.total) {
      s.memory_total_bytes = static_cast<double>(m.total);
      s.memory_used_bytes = static_cast<double>(m.used);
    }
    if (unsigned t = 0; a.temperature &&
                        ok(a.temperature(dev, nvml::kTemperatureGpu, &t), "temperature", s) &&
                        t < 1000) {
      s.temperature_celsius = t;
      s.temperatures_celsius["gpu"] = t;
    }
    if (unsigned mw = 0; a.power && ok(a.power(dev, &mw), "power", s)) s.power_watts = mw / 1000.0;
    if (unsigned mw = 0; a.power_limit && ok(a.power_limit(dev, &mw), "power limit", s) && mw > 0)
      s.power_limit_watts = mw / 1000.0;
    if (unsigned long long mj = 0; a.energy && ok(a.energy(dev, &mj), "energy", s))
      s.energy_joules = static_cast<double>(mj) / 1000.0;
    const std::pair<int, const char*> clocks[] = {
        {nvml::kClockGraphics, "graphics"}, {nvml::kClockSm, "sm"}, {nvml::kClockMem, "memory"}};
    for (auto [type, name] : clocks)
      if (unsigned mhz = 0; a.clock && ok(a.clock(dev, type, &mhz), "clock", s))
        s.clocks_hertz[name] = mhz * 1e6;
    sample_mig_devices(dev, s);
  }

  // Each MIG device's memory, from nvmlDeviceGetMemoryInfo on its own handle (nvml.h of
  // NVIDIA/go-nvml gen/nvml/nvml.h). Nothing else: NVML gives utilisation ("not currently
  // supported" on MIG-enabled GPUs), power and temperature per parent GPU only, so those stay
  // on the parent and are absent from the instance.
  // A GPU whose MIG mode cannot be read is taken as without MIG, quietly, as discovery takes it
  // (vendorlib/nvml/probe.cc): instances discovery found anyway are then said to be unsampled
  // (metrics/partition_samples.cc), and a GPU without MIG support keeps its output unchanged.
  void sample_mig_devices(nvml::Device dev, DeviceSample& s) const {
    const auto& a = *api_;
    unsigned current = 0, pending = 0, max = 0;
    if (!a.has_mig() || a.mig_mode(dev, &current, &pending) != nvml::kSuccess ||
        current != nvml::kMigEnabled || !ok(a.max_mig(dev, &max), "MIG device count", s))
      return;
    for (unsigned i = 0; i < max && i < 64; ++i) {
      nvml::Device mig = nullptr;
      if (auto r = a.mig_by_index(dev, i, &mig); r != nvml::kSuccess || !mig) {
        if (r != nvml::kErrorNotFound) ok(r, "MIG device handle", s);  // NOT_FOUND: empty slot
        continue;
      }
      PartitionSample p;
      if (!ok(a.gi_id(mig, &p.gpu_instance), "MIG GPU instance id", s) ||
          !ok(a.ci_id(mig, &p.compute_instance), "MIG compute instance id", s))
        continue;
      if (nvml::Memory m{};
          a.memory && ok(a.memory(mig, &m), "MIG memory", s) && m.total > 0 && m.used <= m.total) {
        p.memory_total_bytes = static_cast<double>(m.total);
        p.memory_used_bytes = static_cast<double>(m.used);
      }
      s.partitions.push_back(std::move(p));
    }
  }

  std::unique_ptr<NvmlMetricsApi> api_;
};

}  // namespace

std::unique_ptr<LibrarySampler> nvml::make_sampler() {
  return std::make_unique<NvmlSampler>();
}

}  // namespace anygpu
