// Metrics from the kernel's own files: amdgpu-style device attributes (gpu_busy_percent,
// mem_info_vram_*), hwmon channels (temperatures, power, energy, clocks) and Intel's GT
// frequency. Used for the drivers sysfs_metrics_driver() names, and as the generic hwmon reader
// for any vendor.
#include <cerrno>
#include <map>

#include "host/paths.h"
#include "metrics/backend.h"
#include "probe/sysfs_value.h"
#include "util/strings.h"

namespace anygpu {

namespace metrics {
namespace {

namespace mp = paths::metrics;

struct Reader {
  const HostRoot& host;
  DeviceSample& out;

  // The value of `path` in [min, max]; absent when the file does not exist, absent plus a
  // warning naming the path when it exists but is unusable.
  std::optional<int64_t> integer(const std::string& path, int64_t min, int64_t max) {
    auto text = host.read_value(path);
    if (!text) {
      int e = text.error().sys_errno;
      if (e != ENOENT && e != ENOTDIR) out.warnings.push_back(text.error().message);
      return std::nullopt;
    }
    auto v = parse_sysfs_integer(*text, min, max);
    if (!v) {
      out.warnings.push_back(path + ": " + v.error().message);
      return std::nullopt;
    }
    return *v;
  }
  std::optional<std::string> label(const std::string& path) {
    auto text = host.read_value(path);
    if (!text || text->size() > 64 || !is_printable_text(*text)) return std::nullopt;
    return *text;
  }
};

// "temp2_input" -> {"temp", 2, "input"}.
struct Channel {
  std::string kind;
  int number = 0;
  std::string item;
};
std::optional<Channel> parse_channel(std::string_view name) {
  auto us = name.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  auto head = name.substr(0, us);
  size_t digits = head.size();
  while (digits > 0 && head[digits - 1] >= '0' && head[digits - 1] <= '9') --digits;
  if (digits == head.size() || digits == 0 || head.size() - digits > 3) return std::nullopt;
  Channel c;
  c.kind = std::string(head.substr(0, digits));
  c.number = std::stoi(std::string(head.substr(digits)));
  c.item = std::string(name.substr(us + 1));
  return c;
}

// amdgpu names its clocks by the SMU's names; the schema uses the common ones.
std::string clock_name(const std::string& label) {
  if (label == "sclk") return "graphics";
  if (label == "mclk") return "memory";
  return label;
}

// The first hwmonN directory of the device (amdgpu, i915 and xe register one per device).
std::optional<std::string> hwmon_dir(const HostRoot& host, const std::string& base) {
  std::string dir = cat({base, "/", mp::kHwmonDir});
  auto names = host.list_dir(dir);
  if (!names) return std::nullopt;
  for (const auto& n : *names)
    if (n.starts_with("hwmon")) return dir + "/" + n;
  return std::nullopt;
}

// The energy counter to report. Intel's xe registers `card` (energy1) and `pkg` (energy2) and
// not every part has both (an Arc A380 has only pkg); i915 has one unlabelled energy1.
// `card` covers the whole board, so it wins while it counts; a card counter stuck at 0 beside
// a live pkg one (B580, kernel 6.16) gives way to pkg. Unlabelled: the lowest channel.
// (Documentation/ABI/testing/sysfs-driver-intel-xe-hwmon, torvalds/linux@2369f05661ef.)
int choose_energy_channel(Reader& r, const std::string& dir, const std::map<int, double>& joules) {
  int card = 0, pkg = 0;
  for (auto [n, j] : joules) {
    auto label = r.label(cat({dir, "/energy", std::to_string(n), "_label"}));
    if (label == "card" && !card) card = n;
    if (label == "pkg" && !pkg) pkg = n;
  }
  if (card && (joules.at(card) > 0 || !pkg)) return card;
  if (pkg) return pkg;
  return joules.begin()->first;
}

void read_hwmon(Reader& r, const std::string& dir, EnergyState& state,
                std::chrono::steady_clock::time_point now) {
  auto names = r.host.list_dir(dir);
  if (!names) return;
  std::map<int, double> temps;  // channel -> °C
  std::optional<double> power_average, power_input, power_cap;
  std::map<int, double> joules, power_max;  // channel -> J, W
  std::map<int, double> freqs;
  for (const auto& n : *names) {
    auto c = parse_channel(n);
    if (!c) continue;
    std::string path = dir + "/" + n;
    if (c->kind == "temp" && c->item == "input") {
      if (auto v = r.integer(path, kMinMilliCelsius, kMaxMilliCelsius))
        temps[c->number] = static_cast<double>(*v) / 1000.0;
    } else if (c->kind == "power" && c->number == 1 && c->item == "average") {
      if (auto v = r.integer(path, 0, kMaxMicroWatts)) power_average = *v / 1e6;
    } else if (c->kind == "power" && c->number == 1 && c->item == "input") {
      if (auto v = r.integer(path, 0, kMaxMicroWatts)) power_input = *v / 1e6;
    } else if (c->kind == "power" && c->number == 1 && c->item == "cap") {
      if (auto v = r.integer(path, 1, kMaxMicroWatts)) power_cap = *v / 1e6;
    } else if (c->kind == "power" && c->item == "max") {
      // Intel's sustained (PL1) limit; 0 means the limit is disabled.
      if (auto v = r.integer(path, 0, kMaxMicroWatts); v && *v > 0) power_max[c->number] = *v / 1e6;
    } else if (c->kind == "energy" && c->item == "input") {
      if (auto v = r.integer(path, 0, kMaxMicroJoules))
        joules[c->number] = static_cast<double>(*v) / 1e6;
    } else if (c->kind == "freq" && c->item == "input") {
      if (auto v = r.integer(path, 0, kMaxHertz)) freqs[c->number] = static_cast<double>(*v);
    }
  }
  for (auto [n, celsius] : temps) {
    auto label = r.label(cat({dir, "/temp", std::to_string(n), "_label"}));
    r.out.temperatures_celsius[label.value_or("temp" + std::to_string(n))] = celsius;
  }
  // Headline: the edge sensor where the part has one, else the junction (hotspot), else the
  // first channel (i915's unlabelled temp1, xe's pkg).
  const auto& t = r.out.temperatures_celsius;
  if (t.contains("edge")) {
    r.out.temperature_celsius = t.at("edge");
  } else if (t.contains("junction")) {
    r.out.temperature_celsius = t.at("junction");
  } else if (!temps.empty()) {
    r.out.temperature_celsius = temps.begin()->second;
  }
  // radeon registers one unlabelled clock, freq1 = sclk (drivers/gpu/drm/radeon/radeon_pm.c);
  // amdgpu labels its own.
  const bool radeon = r.label(dir + "/name") == "radeon";
  for (auto [n, hz] : freqs) {
    auto label = r.label(cat({dir, "/freq", std::to_string(n), "_label"}));
    if (!label && radeon && n == 1) label = "sclk";
    r.out.clocks_hertz[clock_name(label.value_or("freq" + std::to_string(n)))] = hz;
  }
  // amdgpu: power1_average (pre-MI300) or power1_input (MI300, RDNA3 "PPT" current).
  r.out.power_watts = power_average ? power_average : power_input;
  if (joules.empty()) {
    r.out.power_limit_watts = power_cap;
    return;
  }
  const int channel = choose_energy_channel(r, dir, joules);
  const double energy = joules.at(channel);
  // The limit of the domain whose energy is reported (i915 power1_max, xe power2_max for pkg),
  // else whichever Intel limit the part has.
  if (power_cap)
    r.out.power_limit_watts = power_cap;
  else if (power_max.contains(channel))
    r.out.power_limit_watts = power_max.at(channel);
  else if (!power_max.empty())
    r.out.power_limit_watts = power_max.begin()->second;
  r.out.energy_joules = energy;
  if (state.channel != channel) state.joules.reset();  // a different counter: no delta
  // Intel publishes energy, not power: the mean power since the previous sample.
  if (!r.out.power_watts && state.joules) {
    double seconds = std::chrono::duration<double>(now - state.at).count();
    if (energy < *state.joules) {
      r.out.warnings.push_back(cat({dir, "/energy", std::to_string(channel),
                                    "_input: counter went backwards (reset or wrap)"}));
    } else if (seconds > 0.001) {
      r.out.power_watts = (energy - *state.joules) / seconds;
    }
  }
  state.channel = channel;
  state.joules = energy;
  state.at = now;
}

// Intel GT frequency: i915 publishes it per DRM card, xe per tile and GT under the device.
void read_intel_frequency(Reader& r, const std::string& base) {
  if (r.out.clocks_hertz.contains("graphics")) return;
  if (auto mhz = r.integer(cat({base, "/", mp::kXeCurFreq}), 0, kMaxMegaHertz)) {
    r.out.clocks_hertz["graphics"] = static_cast<double>(*mhz) * 1e6;
    return;
  }
  auto cards = r.host.list_dir(cat({base, "/", mp::kDrmDir}));
  if (!cards) return;
  for (const auto& c : *cards) {
    if (!c.starts_with("card")) continue;
    auto path = cat({base, "/", mp::kDrmDir, "/", c, "/", mp::kI915CurFreq});
    if (auto mhz = r.integer(path, 0, kMaxMegaHertz)) {
      r.out.clocks_hertz["graphics"] = static_cast<double>(*mhz) * 1e6;
      return;
    }
  }
}

}  // namespace

void sample_sysfs_device(const HostRoot& host, const Device& device, EnergyState& state,
                         std::chrono::steady_clock::time_point now, DeviceSample& out) {
  const std::string base = cat({paths::kPciDevices, "/", device.pci.address.str()});
  Reader r{host, out};
  if (auto busy = r.integer(cat({base, "/", mp::kGpuBusyPercent}), 0, kMaxPercent))
    out.utilization_ratio = static_cast<double>(*busy) / 100.0;
  if (auto used = r.integer(cat({base, "/", mp::kVramUsed}), 0, kMaxBytes))
    out.memory_used_bytes = static_cast<double>(*used);
  if (auto total = r.integer(cat({base, "/", mp::kVramTotal}), 1, kMaxBytes))
    out.memory_total_bytes = static_cast<double>(*total);
  if (out.memory_used_bytes && out.memory_total_bytes &&
      *out.memory_used_bytes > *out.memory_total_bytes) {
    out.warnings.push_back(base + "/" + std::string(mp::kVramUsed) + ": more than the total");
    out.memory_used_bytes.reset();
  }
  if (auto dir = hwmon_dir(host, base)) read_hwmon(r, *dir, state, now);
  if (device.driver && (device.driver->name == "i915" || device.driver->name == "xe"))
    read_intel_frequency(r, base);
}

bool sysfs_metrics_driver(std::string_view driver) {
  return driver == "amdgpu" || driver == "hydcu" || driver == "i915" || driver == "xe";
}

}  // namespace metrics

namespace {

class SysfsBackend final : public MetricsBackend {
 public:
  SysfsBackend(HostRoot host, std::string vendor, std::string source, std::vector<Device> devices)
      : host_(std::move(host)),
        vendor_(std::move(vendor)),
        source_(std::move(source)),
        devices_(std::move(devices)),
        energy_(devices_.size()) {}

  const std::string& vendor() const override { return vendor_; }
  const std::string& source() const override { return source_; }
  std::vector<DeviceSample> identities() const override {
    std::vector<DeviceSample> out;
    for (const auto& d : devices_) out.push_back(identity_of(d));
    return out;
  }
  Result<std::vector<DeviceSample>> sample() override {
    // Every file would read as absent, which is not a sample: the tree is gone.
    if (devices_gone(host_, devices_))
      return host_error("the devices' sysfs directories are gone (" +
                        host_.outside(paths::kPciDevices) + ")");
    std::vector<DeviceSample> out;
    auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < devices_.size(); ++i) {
      auto s = identity_of(devices_[i]);
      if (devices_[i].status == DeviceStatus::suspended) {
        // Reading amdgpu or hwmon attributes resumes the device: never wake it to look at it.
        s.warnings.push_back("runtime-suspended: not sampled");
      } else {
        metrics::sample_sysfs_device(host_, devices_[i], energy_[i], now, s);
      }
      out.push_back(std::move(s));
    }
    return out;
  }

 private:
  HostRoot host_;
  std::string vendor_, source_;
  std::vector<Device> devices_;
  std::vector<metrics::EnergyState> energy_;
};

}  // namespace

std::shared_ptr<MetricsBackend> make_sysfs_backend(HostRoot host, std::string vendor,
                                                   std::string source,
                                                   std::vector<Device> devices) {
  return std::make_shared<SysfsBackend>(std::move(host), std::move(vendor), std::move(source),
                                        std::move(devices));
}

}  // namespace anygpu
