// Huawei Ascend metrics through DCMI (libdcmi.so, beneath the root in the registry's library
// dirs), on top of whatever hwmon the driver registers. Without the library the backend is the
// hwmon reader it always was; with it, AI Core utilization, temperature, power and HBM join.
// DcmiSampler runs only in a long-lived library worker (src/worker/), like NVML's.
#include "vendorlib/dcmi/dcmi.h"

#include "util/strings.h"
#include "vendorlib/dcmi/api.h"
#include "vendorlib/library_sampler.h"

namespace anygpu {

namespace {

class DcmiSampler final : public LibrarySampler {
 public:
  Result<bool> open(const DynamicLibrary& lib) override {
    auto api = std::make_unique<dcmi::Api>(lib);
    if (!api->usable())
      return host_error(lib.loaded_from() +
                        ": no dcmi_init, dcmi_get_card_list, "
                        "dcmi_get_device_num_in_card or PCIe info call");
    if (int r = api->init(); r != dcmi::kOk)
      return host_error("dcmi_init failed: error " + std::to_string(r));
    api_ = std::move(api);
    return true;
  }

  std::vector<DeviceSample> sample(const std::vector<SampleTarget>& targets) override {
    auto chips = dcmi::chips(*api_);
    std::vector<DeviceSample> out(targets.size());
    for (size_t i = 0; i < targets.size(); ++i) {
      if (targets[i].suspended) continue;
      const auto& a = targets[i].address;
      auto it = chips.find({a.domain, a.bus, a.device, a.function});
      if (it == chips.end()) {
        out[i].warnings.push_back("dcmi does not list this device");
        continue;
      }
      sample_chip(it->second.first, it->second.second, out[i]);
    }
    return out;
  }

 private:
  static bool ok(int r, const char* what, DeviceSample& s) {
    if (r == dcmi::kOk) return true;
    s.warnings.push_back(cat({what, ": error ", std::to_string(r)}));
    return false;
  }

  void sample_chip(int card, int device, DeviceSample& s) const {
    const auto& a = *api_;
    if (unsigned pct = 0;
        a.utilization &&
        ok(a.utilization(card, device, dcmi::kUtilizationAiCore, &pct), "utilization", s) &&
        pct <= 100)
      s.utilization_ratio = pct / 100.0;
    if (int t = 0; a.temperature && ok(a.temperature(card, device, &t), "temperature", s) &&
                   t > -100 && t < 1000) {
      s.temperature_celsius = t;
      s.temperatures_celsius["npu"] = t;
    }
    if (int p = 0; a.power && ok(a.power(card, device, &p), "power", s) && p >= 0)
      s.power_watts = p / 10.0;
    if (dcmi::HbmInfo h{}; a.hbm && ok(a.hbm(card, device, &h), "hbm", s) && h.memory_size > 0 &&
                           h.memory_usage <= h.memory_size && h.memory_size < (1ull << 40)) {
      constexpr double kMiB = 1024.0 * 1024.0;
      s.memory_total_bytes = static_cast<double>(h.memory_size) * kMiB;
      s.memory_used_bytes = static_cast<double>(h.memory_usage) * kMiB;
      if (h.temp > -100 && h.temp < 1000) s.temperatures_celsius["hbm"] = h.temp;
    }
  }

  std::unique_ptr<dcmi::Api> api_;
};

}  // namespace

std::unique_ptr<LibrarySampler> dcmi::make_sampler() {
  return std::make_unique<DcmiSampler>();
}

}  // namespace anygpu
