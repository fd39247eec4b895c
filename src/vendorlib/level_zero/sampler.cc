// Intel metrics: the kernel's files (metrics/sysfs_sampler.cc) plus Level Zero Sysman where the
// loader loads (libze_loader with zesInit, spec >= 1.5). Sysman adds what sysfs lacks: engine
// utilization (from two activity snapshots) and device memory. ZeSampler runs only in a
// long-lived library worker (src/worker/), which keeps the loader and the activity snapshots.
#include "vendorlib/level_zero/level_zero.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "vendorlib/level_zero/api.h"
#include "vendorlib/library_sampler.h"

namespace anygpu {

namespace {

using ze::BusKey;
using ze::enumerate;
using ze::why;

class ZeSampler final : public LibrarySampler {
 public:
  Result<bool> open(const DynamicLibrary& lib) override {
    auto api = std::make_unique<ze::Api>(lib);
    if (auto failed = ze::start(*api, lib)) return host_error(*failed);
    api_ = std::move(api);
    return true;
  }

  std::vector<DeviceSample> sample(const std::vector<SampleTarget>& targets) override {
    auto sysman = ze::devices_by_address(*api_);
    std::vector<DeviceSample> out(targets.size());
    for (size_t i = 0; i < targets.size(); ++i) {
      if (targets[i].suspended) continue;  // never wake it to look at it
      const auto& a = targets[i].address;
      auto it = sysman.find({a.domain, a.bus, a.device, a.function});
      if (it == sysman.end()) {
        out[i].warnings.push_back("level-zero does not list this device");
        continue;
      }
      sample_utilization(it->first, it->second, out[i]);
      sample_memory(it->second, out[i]);
    }
    return out;
  }

 private:
  // The busiest-level aggregate Sysman offers: all engines, else all compute, else all render.
  // Several such groups (one per tile) are pooled: sum of busy time over sum of elapsed time.
  void sample_utilization(const BusKey& key, ze::Device dev, DeviceSample& s) {
    if (!api_->engines || !api_->engine_props || !api_->activity) return;
    std::map<int, std::vector<ze::Engine>> groups;
    for (auto e : enumerate<ze::Engine>(api_->engines, dev)) {
      ze::EngineProperties p{};
      p.stype = ze::kStructureTypeEngineProperties;
      if (api_->engine_props(e, &p) == ze::kSuccess) groups[p.type].push_back(e);
    }
    const std::vector<ze::Engine>* chosen = nullptr;
    for (int type : {ze::kEngineGroupAll, ze::kEngineGroupComputeAll, ze::kEngineGroupRenderAll})
      if (!chosen && groups.count(type)) chosen = &groups[type];
    if (!chosen) return;
    auto& previous = activity_[key];
    std::vector<ze::EngineStats> now;
    for (auto e : *chosen) {
      ze::EngineStats st{};
      if (auto r = api_->activity(e, &st); r != ze::kSuccess) {
        s.warnings.push_back("zesEngineGetActivity: " + why(r));
        previous.clear();
        return;
      }
      now.push_back(st);
    }
    // The first snapshot only starts the interval; a counter that went back (driver reload)
    // restarts it.
    if (previous.size() == now.size()) {
      uint64_t busy = 0, elapsed = 0;
      bool monotonic = true;
      for (size_t i = 0; i < now.size(); ++i) {
        if (now[i].activeTime < previous[i].activeTime ||
            now[i].timestamp < previous[i].timestamp) {
          monotonic = false;
          break;
        }
        busy += now[i].activeTime - previous[i].activeTime;
        elapsed += now[i].timestamp - previous[i].timestamp;
      }
      if (monotonic && elapsed > 0)
        s.utilization_ratio = std::min(1.0, static_cast<double>(busy) / elapsed);
    }
    previous = std::move(now);
  }

  // Every memory module Sysman lists for the device, summed (one per HBM stack or tile).
  void sample_memory(ze::Device dev, DeviceSample& s) {
    if (!api_->memories || !api_->mem_state) return;
    uint64_t size = 0, free = 0;
    auto modules = enumerate<ze::Mem>(api_->memories, dev);
    for (auto m : modules) {
      ze::MemState st{};
      st.stype = ze::kStructureTypeMemState;
      if (auto r = api_->mem_state(m, &st); r != ze::kSuccess) {
        s.warnings.push_back("zesMemoryGetState: " + why(r));
        return;
      }
      if (st.free > st.size) {
        s.warnings.push_back("zesMemoryGetState: free exceeds size");
        return;
      }
      size += st.size;
      free += st.free;
    }
    if (modules.empty() || size == 0) return;
    s.memory_total_bytes = static_cast<double>(size);
    s.memory_used_bytes = static_cast<double>(size - free);
  }

  std::unique_ptr<ze::Api> api_;
  std::map<BusKey, std::vector<ze::EngineStats>> activity_;
};

}  // namespace

std::unique_ptr<LibrarySampler> ze::make_sampler() {
  return std::make_unique<ZeSampler>();
}

}  // namespace anygpu
