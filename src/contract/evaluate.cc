#include "contract/evaluate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "registry/vendor_names.h"
#include "registry/wheel_data.h"
#include "util/strings.h"
#include "util/version.h"
#include "wheel/framework_check.h"
#include "wheel/recommend.h"

namespace anygpu {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Drivers report a few MiB less than the nominal size (firmware reservations): a "24GB" card
// shows 23.98 GiB. memory_gb_min accepts that.
constexpr double kMemoryTolerance = 0.99;

std::string fmt_number(double v) {
  char buf[64];
  if (std::fabs(v - std::round(v)) < 0.05)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string plural(size_t n, std::string_view word) {
  return cat({std::to_string(n), " ", word, n == 1 ? "" : "s"});
}

CheckResult make(std::string name, CheckStatus status, std::string observed, std::string required,
                 std::string message, std::string suggestion = {}) {
  return {std::move(name),     status,
          std::move(observed), std::move(required),
          std::move(message),  std::move(suggestion)};
}

CheckResult pass(std::string name, std::string observed, std::string required,
                 std::string message = {}) {
  if (message.empty()) message = "required: " + required;
  return make(std::move(name), CheckStatus::pass, std::move(observed), std::move(required),
              std::move(message));
}

std::string device_name(const Device& d) {
  return d.name.value_or(cat({d.vendor, " device ", hex(d.pci.device_id, 4)}));
}

std::string pci_id(const Device& d) {
  return cat({hex(d.pci.vendor_id, 4).substr(2), ":", hex(d.pci.device_id, 4).substr(2)});
}

// Up to `max` distinct device names of the registry table that pass `pred`.
template <class Pred>
std::vector<std::string> table_examples(const Registry& reg, Pred pred, size_t max = 3) {
  std::vector<std::string> out;
  for (const auto& d : reg.devices()) {
    if (!pred(d)) continue;
    std::string n(d.name);
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    if (out.size() >= max) break;
  }
  return out;
}

std::string examples_suffix(const std::vector<std::string>& ex) {
  return ex.empty() ? std::string() : cat({" (e.g. ", join(ex, ", "), ")"});
}

struct Context {
  const ContractSpec& spec;
  const Inventory& inv;
  const PythonFacts& py;
  const Registry& reg;
  std::string vendor;                  // the vendor evaluated; "" on a host without accelerators
  std::vector<const Device*> devices;  // its usable devices
  size_t need = 1;
};

// --- per-device predicates ------------------------------------------------------------------

bool arch_ok(const Context& c, const Device& d) {
  if (c.spec.compute_capability.empty()) return true;
  if (!d.arch) return false;
  return std::any_of(c.spec.compute_capability.begin(), c.spec.compute_capability.end(),
                     [&](const ArchRequirement& r) { return r.accepts(*d.arch); });
}

bool memory_ok(const Context& c, const Device& d) {
  if (!c.spec.memory_gb_min) return true;
  return d.memory_total_bytes && static_cast<double>(*d.memory_total_bytes) >=
                                     *c.spec.memory_gb_min * kGiB * kMemoryTolerance;
}

bool bandwidth_ok(const Context& c, const Device& d) {
  if (!c.spec.memory_bandwidth_gbps) return true;
  return d.memory_bandwidth_gbps && *d.memory_bandwidth_gbps >= *c.spec.memory_bandwidth_gbps;
}

std::string no_accelerator_message() {
  return "no accelerator found on this host (anygpu detect lists no device)";
}

std::string no_accelerator_suggestion(std::string_view what) {
  return cat({"run on a host with an accelerator that has ", what,
              ", or check that its driver is loaded (anygpu detect -v)"});
}

// Which vendors a list of arch requirements can be satisfied by, in words.
std::string arch_satisfiers(const Context& c) {
  std::vector<std::string> parts;
  for (const auto& r : c.spec.compute_capability) {
    auto ex = table_examples(
        c.reg, [&](const DeviceSpec& d) { return r.accepts(d.arch); }, 2);
    std::string who = r.is_nvidia() ? "an NVIDIA GPU with "
                      : r.is_gfx()  ? "an AMD GPU with "
                                    : "a device with arch ";
    parts.push_back(cat({who, r.describe(), examples_suffix(ex)}));
  }
  return join(parts, " or ");
}

std::string arch_required(const ContractSpec& spec) {
  std::vector<std::string> parts;
  for (const auto& r : spec.compute_capability) parts.push_back(r.describe());
  return parts.size() == 1 ? parts[0] : "one of " + join(parts, ", ");
}

// "sm_90 (NVIDIA H100 80GB HBM3)", plus " on 2 of 3 devices" when not all agree.
std::string observed_for(const Context& c, const Device* shown, size_t matching,
                         const std::string& value) {
  std::string s = cat({value, " (", device_name(*shown), ")"});
  if (matching != c.devices.size() && matching > 0)
    s += cat(
        {" on ", std::to_string(matching), " of ", std::to_string(c.devices.size()), " devices"});
  return s;
}

// --- the checks -------------------------------------------------------------------------------

CheckResult check_arch(const Context& c) {
  const std::string name = "GPU compute capability";
  auto required = arch_required(c.spec);
  if (c.devices.empty())
    return make(name, CheckStatus::fail, "", required, no_accelerator_message(),
                no_accelerator_suggestion(required));
  std::vector<const Device*> ok, unknown;
  for (const auto* d : c.devices) {
    if (!d->arch)
      unknown.push_back(d);
    else if (arch_ok(c, *d))
      ok.push_back(d);
  }
  if (ok.size() >= c.need)
    return pass(name, observed_for(c, ok.front(), ok.size(), *ok.front()->arch), required);
  if (ok.size() + unknown.size() >= c.need && !unknown.empty()) {
    const Device& d = *unknown.front();
    return make(name, CheckStatus::warn, device_name(d), required,
                cat({"architecture of ", device_name(d), " (", pci_id(d),
                     ") is unknown; cannot verify ", required}),
                cat({"add the device with its arch to data/devices.yaml (anygpu vendors --devices "
                     "lists the table), or run with vendor libraries enabled"}));
  }
  const Device* shown = c.devices.front();
  for (const auto* d : c.devices)
    if (d->arch) {
      shown = d;
      break;
    }
  auto observed = cat({shown->arch.value_or("unknown arch"), " (", device_name(*shown), ")"});
  // Does any entry speak about this vendor's kind of arch at all?
  bool applies = false;
  if (shown->arch) {
    auto a = ArchRequirement::parse(*shown->arch);
    for (const auto& r : c.spec.compute_capability) {
      if (a && a->is_nvidia() && r.is_nvidia()) applies = true;
      if (a && a->is_gfx() && r.is_gfx()) applies = true;
      if (a && a->kind == ArchRequirement::Kind::exact && r.kind == ArchRequirement::Kind::exact)
        applies = true;
    }
  }
  auto vname = vendor_display_name(c.vendor, c.reg);
  if (!applies)
    return make(name, CheckStatus::fail, observed, required,
                cat({observed, ": gpu_compute_capability names no ", vname,
                     " architecture (it lists ", required, ")"}),
                cat({"run on a host with ", arch_satisfiers(c), ", or add ",
                     shown->arch.value_or("its arch"),
                     " to gpu_compute_capability to accept this host's ", device_name(*shown)}));
  std::string count_note;
  if (c.need > 1)
    count_note = cat({" (", std::to_string(ok.size()), " of ", std::to_string(c.devices.size()),
                      " devices qualify, ", std::to_string(c.need), " needed)"});
  return make(
      name, CheckStatus::fail, observed, required,
      cat({observed, " does not satisfy ", required, count_note}),
      cat({"run on a host with ", arch_satisfiers(c), ", or change gpu_compute_capability"}));
}

// Memory and bandwidth share their shape: a number per device from the table or a library.
CheckResult check_quantity(const Context& c, const std::string& name, double required_value,
                           const char* unit, const char* key,
                           std::optional<double> (*value_of)(const Device&),
                           bool (*ok_fn)(const Context&, const Device&)) {
  auto required = cat({">= ", fmt_number(required_value), " ", unit});
  if (c.devices.empty())
    return make(name, CheckStatus::fail, "", required, no_accelerator_message(),
                no_accelerator_suggestion(cat({fmt_number(required_value), " ", unit})));
  std::vector<const Device*> ok, unknown;
  const Device* best = nullptr;
  for (const auto* d : c.devices) {
    auto v = value_of(*d);
    if (!v) {
      unknown.push_back(d);
      continue;
    }
    if (ok_fn(c, *d)) ok.push_back(d);
    if (!best || *v > *value_of(*best)) best = d;
  }
  std::string shown_unit = std::string_view(unit) == "GB" ? "GiB" : unit;
  auto value_text = [&](const Device& d) {
    return cat({fmt_number(*value_of(d)), " ", shown_unit});
  };
  if (ok.size() >= c.need)
    return pass(name, observed_for(c, ok.front(), ok.size(), value_text(*ok.front())), required);
  if (ok.size() + unknown.size() >= c.need && !unknown.empty()) {
    const Device& d = *unknown.front();
    return make(
        name, CheckStatus::warn, device_name(d), required,
        cat({key, " of ", device_name(d), " (", pci_id(d),
             ") is unknown: the device table has no entry for it; cannot verify ", required}),
        cat({"add the device (", c.vendor, " ", hex(d.pci.device_id, 4), ") with ",
             std::string_view(key) == "memory" ? "memory_gib" : "memory_bandwidth_gbps",
             " to data/devices.yaml, or run with vendor libraries enabled"}));
  }
  auto ex = table_examples(c.reg, [&](const DeviceSpec& d) {
    auto v = std::string_view(key) == "memory" ? d.memory_gib : d.memory_bandwidth_gbps;
    return v && *v >= required_value * (std::string_view(key) == "memory" ? kMemoryTolerance : 1.0);
  });
  std::string observed = best ? value_text(*best) : "unknown";
  std::string who = best ? cat({" (", device_name(*best), ")"}) : "";
  std::string count_note;
  if (c.need > 1 && best && ok_fn(c, *best))
    count_note = cat({" on ", std::to_string(ok.size()), " of ", std::to_string(c.devices.size()),
                      " devices, ", std::to_string(c.need), " needed"});
  return make(
      name, CheckStatus::fail, observed + who, required,
      cat({observed, " < ", fmt_number(required_value), " ", unit, " required", count_note}),
      cat({"run on hardware with at least ", fmt_number(required_value), " ", unit,
           examples_suffix(ex), ", or lower ",
           key == std::string_view("memory") ? "memory_gb_min" : "memory_bandwidth_gbps"}));
}

std::optional<double> memory_gib_of(const Device& d) {
  if (!d.memory_total_bytes) return std::nullopt;
  return static_cast<double>(*d.memory_total_bytes) / kGiB;
}
std::optional<double> bandwidth_of(const Device& d) {
  return d.memory_bandwidth_gbps;
}

CheckResult check_driver(const Context& c) {
  const std::string name = "Driver version";
  const auto& min = *c.spec.driver_version_min;
  auto required = ">= " + min;
  if (c.devices.empty())
    return make(name, CheckStatus::fail, "", required, no_accelerator_message(),
                no_accelerator_suggestion("a driver " + required));
  const Device* with_version = nullptr;
  for (const auto* d : c.devices)
    if (d->driver && d->driver->version) {
      with_version = d;
      break;
    }
  auto vname = vendor_display_name(c.vendor, c.reg);
  if (!with_version) {
    const Device& d = *c.devices.front();
    std::string drv = d.driver ? d.driver->name : std::string("no driver");
    return make(
        name, CheckStatus::warn, drv, required,
        cat({"the ", drv, " driver of ", device_name(d),
             " reports no version (an in-tree kernel driver has none); cannot verify ", required}),
        "check the driver with the vendor's tool, or remove driver_version_min for this "
        "vendor");
  }
  const auto& v = *with_version->driver->version;
  auto cmp = compare_versions(v, min);
  if (!cmp)
    return make(name, CheckStatus::warn, v, required,
                cat({"cannot compare driver version '", v, "' with ", min}),
                "check the driver version by hand");
  if (*cmp >= 0) return pass(name, v, required);
  return make(name, CheckStatus::fail, v, required, cat({v, " < ", min, " required"}),
              cat({"upgrade the ", vname, " driver (", with_version->driver->name, ") to ", min,
                   " or newer"}));
}

CheckResult check_vendor(const Context& c) {
  const std::string name = "Vendor";
  auto required =
      c.spec.vendors.size() == 1 ? c.spec.vendors[0] : "one of " + join(c.spec.vendors, ", ");
  if (c.vendor.empty())
    return make(name, CheckStatus::fail, "", required, no_accelerator_message(),
                no_accelerator_suggestion(cat({"vendor ", required})));
  auto observed = cat({c.vendor, " (", device_name(*c.devices.front()), ")"});
  if (std::find(c.spec.vendors.begin(), c.spec.vendors.end(), c.vendor) != c.spec.vendors.end())
    return pass(name, observed, required);
  std::vector<std::string> names;
  for (const auto& v : c.spec.vendors) names.push_back(vendor_display_name(v, c.reg));
  return make(name, CheckStatus::fail, observed, required,
              cat({"this host's accelerators are ", c.vendor, "; required: ", required}),
              cat({"run on a host with ", join(names, " or "), " accelerators, or add ", c.vendor,
                   " to vendor"}));
}

CheckResult check_count(const Context& c) {
  const std::string name = "Device count";
  int min = *c.spec.device_count_min;
  auto required = ">= " + std::to_string(min);
  if (c.devices.empty())
    return make(name, CheckStatus::fail, "0 devices", required, no_accelerator_message(),
                no_accelerator_suggestion(cat({std::to_string(min), " devices"})));
  size_t qualifying = 0;
  for (const auto* d : c.devices)
    if (arch_ok(c, *d) && memory_ok(c, *d) && bandwidth_ok(c, *d)) ++qualifying;
  bool filtered =
      !c.spec.compute_capability.empty() || c.spec.memory_gb_min || c.spec.memory_bandwidth_gbps;
  std::string observed = plural(c.devices.size(), c.vendor + " device");
  if (filtered && qualifying != c.devices.size())
    observed = cat({std::to_string(qualifying), " of ", observed, " meet the device requirements"});
  if (qualifying >= static_cast<size_t>(min)) return pass(name, observed, required);
  return make(name, CheckStatus::fail, observed, required,
              cat({observed, "; ", std::to_string(min), " required"}),
              cat({"run on a host with at least ", std::to_string(min), " qualifying ", c.vendor,
                   " devices, or lower device_count_min"}));
}

CheckResult check_kernel(const Context& c) {
  const std::string name = "Kernel version";
  const auto& min = *c.spec.kernel_version_min;
  auto required = ">= " + min;
  if (!c.inv.host.kernel)
    return make(name, CheckStatus::warn, "", required,
                "the kernel release is unknown; cannot verify " + required,
                "check uname -r by hand");
  const auto& k = *c.inv.host.kernel;
  // "5.15.0-122-generic" → "5.15.0"
  size_t end = 0;
  while (end < k.size() && (std::isdigit(static_cast<unsigned char>(k[end])) || k[end] == '.'))
    ++end;
  auto numeric = trim(std::string_view(k).substr(0, end));
  while (!numeric.empty() && numeric.back() == '.') numeric.remove_suffix(1);
  auto cmp = compare_versions(numeric, min);
  if (!cmp)
    return make(name, CheckStatus::warn, k, required,
                cat({"cannot compare kernel '", k, "' with ", min}), "check uname -r by hand");
  if (*cmp >= 0) return pass(name, k, required);
  return make(name, CheckStatus::fail, k, required, cat({k, " < ", min, " required"}),
              cat({"run on a host with Linux ", min, " or newer, or lower kernel_version_min"}));
}

// --- Python dependencies ----------------------------------------------------------------------

std::string dep_title(const Dependency& d) {
  return d.is_torch() ? "PyTorch" : d.name;
}

std::string pip_name(const Dependency& d) {
  return d.is_torch() ? "torch" : d.name;
}

// The installed version of a dependency, or absent.
std::optional<std::string> installed_version(const PythonEnv& env, const Dependency& d) {
  if (d.is_torch() && env.torch && !env.torch->version.empty()) return env.torch->version;
  if (const auto* dist = env.dist(d.dist)) return dist->version;
  return std::nullopt;
}

// The contract's range for torch, if it bounds torch.
std::optional<pep440::SpecifierSet> torch_range(const ContractSpec& spec) {
  for (const auto& d : spec.dependencies)
    if (d.is_torch() && d.version_range) return d.version_range;
  return std::nullopt;
}

// What to install for a dependency outside its range: for torch, the one recommendation (the
// build these devices run, inside the range); for the rest, pip with the range.
std::string install_in_range(const Context& c, const Dependency& d, const std::string& range) {
  if (d.is_torch()) {
    const auto* installed = c.py.env && c.py.env->torch ? &c.py.env->torch->version : nullptr;
    auto choice = recommend_replacement(wheel_data(), c.inv, installed ? *installed : "",
                                        c.vendor.empty() ? "none" : c.vendor, d.version_range);
    if (choice) return choice->pip;
  }
  return cat({"pip install '", pip_name(d), range, "'"});
}

std::string python_suggestion(const PythonFacts& py) {
  return cat({"pass --python with the interpreter the experiment runs (now: ", py.python, ")"});
}

// A check of the packages a container image holds: not read from the host's Python.
std::optional<CheckResult> in_image(const Context& c, const std::string& name) {
  if (c.py.image.empty()) return std::nullopt;
  return make(name, CheckStatus::skip, "", "",
              cat({"the packages are in the container image ", c.py.image,
                   ", which run judges itself (not the host's ", c.py.python, ")"}));
}

CheckResult check_dep_version(const Context& c, const Dependency& d) {
  auto name = dep_title(d) + " version";
  if (auto skip = in_image(c, name)) return *skip;
  std::string required = d.version_range ? d.version_range->str() : "installed";
  if (!c.py.env)
    return make(name, CheckStatus::fail, "", required,
                cat({"cannot read the Python environment: ", c.py.error}), python_suggestion(c.py));
  auto v = installed_version(*c.py.env, d);
  std::string range = d.version_range ? d.version_range->str() : "";
  if (!v)
    return make(
        name, CheckStatus::fail, "not installed", required,
        cat({pip_name(d), " is not installed for ", c.py.python, " (searched ",
             cat({std::to_string(c.py.env->sys_path.size()),
                  c.py.env->sys_path.size() == 1 ? " sys.path entry" : " sys.path entries"}),
             ")"}),
        cat({install_in_range(c, d, range),
             ", or pass --python with the "
             "interpreter that has it"}));
  if (!d.version_range) return pass(name, *v, required, "installed");
  if (d.version_range->contains(*v)) return pass(name, *v, required, "matches " + range);
  bool parsable = pep440::Version::parse(*v).has_value();
  return make(name, CheckStatus::fail, *v, required,
              parsable ? cat({*v, " does not match ", range})
                       : cat({"'", *v, "' is not a PEP 440 version; cannot match ", range}),
              cat({"install a matching version: ", install_in_range(c, d, range)}));
}

std::optional<int> cuda_major(const std::string& cuda) {
  auto parts = split(cuda, '.');
  if (parts.empty()) return std::nullopt;
  auto n = parse_uint(parts[0]);
  if (!n || *n > 1000) return std::nullopt;
  return static_cast<int>(*n);
}

// The one judge of the installed build (doctor's torch.* findings too), worded as a check: its
// most severe finding fails (error) or warns (warning); none or only notes pass.
CheckResult check_wheel(const Context& c) {
  const std::string name = "PyTorch build";
  if (auto skip = in_image(c, name)) return *skip;
  if (!c.py.env || !c.py.env->torch)
    return make(name, CheckStatus::skip, "", "", "torch is not installed (see PyTorch version)");
  const auto& b = *c.py.env->torch;
  auto j =
      judge_torch_build(*c.py.env, c.inv, wheel_data(), c.vendor, c.devices, torch_range(c.spec));
  auto observed = cat({b.version.empty() ? std::string("torch") : b.version, " (",
                       torch_build_words(b), ")", j.with.empty() ? "" : " + ", j.with});
  const Vendor* v = c.reg.vendor(c.vendor);
  std::map<std::string, std::string> words{
      {"cuda", "a CUDA (+cu…) build"},
      {"rocm", "a ROCm (+rocm…) build"},
      {"xpu", "an XPU (+xpu) build"},
      {"plugin", v ? cat({"a CPU build with ", v->torch_package}) : "a CPU build with its plugin"},
      {"vendor", cat({vendor_display_name(c.vendor, c.reg), "'s own build"})}};
  auto required = j.need == "cpu" ? std::string("a CPU build (no accelerator)")
                                  : cat({words[j.need], " for ", c.vendor});
  const Finding* worst = j.worst();
  if (!worst || worst->severity == Severity::info)
    return pass(name, observed, required, worst ? worst->message : "");
  return make(name, worst->severity == Severity::error ? CheckStatus::fail : CheckStatus::warn,
              observed, required, cat({worst->message, ": ", worst->evidence}), worst->action);
}

CheckResult check_distributed(const Context& c) {
  const std::string name = "PyTorch distributed";
  if (auto skip = in_image(c, name)) return *skip;
  if (!c.py.env || !c.py.env->torch)
    return make(name, CheckStatus::skip, "", "", "torch is not installed (see PyTorch version)");
  const auto& b = *c.py.env->torch;
  auto kind = b.kind();
  std::string lib = kind == "cuda"   ? "NCCL"
                    : kind == "rocm" ? "RCCL"
                    : kind == "xpu"  ? "oneCCL"
                                     : "";
  auto required = lib.empty() ? std::string("torch.distributed") : "torch.distributed + " + lib;
  if (!b.has_distributed)
    return make(name, CheckStatus::fail, "no torch.distributed", required,
                cat({"torch.distributed is missing from ", b.dir}),
                "install the full torch wheel from download.pytorch.org (this build was made "
                "without distributed support)");
  if (lib.empty()) return pass(name, "torch.distributed (gloo)", required);
  auto has_lib = [&](std::string_view prefix) {
    for (const auto& p : b.collective_libs)
      if (p.substr(p.find_last_of('/') + 1).rfind(prefix, 0) == 0) return true;
    return false;
  };
  auto dist_with_prefix = [&](std::string_view prefix) -> const InstalledDist* {
    for (const auto& dd : c.py.env->dists)
      if (dd.name.rfind(prefix, 0) == 0) return &dd;
    return nullptr;
  };
  if (kind == "cuda") {
    if (has_lib("libnccl"))
      return pass(name, "torch.distributed + NCCL (" + b.dir + "/lib)", required);
    if (const auto* n = dist_with_prefix("nvidia-nccl"))
      return pass(name, cat({"torch.distributed + NCCL (", n->name, " ", n->version, ")"}),
                  required);
    auto major = b.cuda ? cuda_major(*b.cuda) : std::nullopt;
    return make(
        name, CheckStatus::fail, "torch.distributed without NCCL", required,
        "NCCL not found (no libnccl in torch/lib, no nvidia-nccl-cu* package)",
        cat({"pip install nvidia-nccl-cu", major ? std::to_string(*major) : std::string("12"),
             " (or reinstall torch from download.pytorch.org)"}));
  }
  if (kind == "rocm") {
    if (has_lib("librccl"))
      return pass(name, "torch.distributed + RCCL (" + b.dir + "/lib)", required);
    return make(name, CheckStatus::fail, "torch.distributed without RCCL", required,
                "RCCL not found (no librccl in torch/lib)",
                "reinstall the ROCm torch wheel (it ships librccl.so in torch/lib)");
  }
  if (has_lib("libccl") || dist_with_prefix("oneccl"))
    return pass(name, "torch.distributed + oneCCL", required);
  return make(name, CheckStatus::warn, "torch.distributed", required,
              "oneCCL not found next to torch; multi-device XPU runs may fail",
              "install the XPU torch wheel with oneCCL (torch >= 2.7) or oneccl_bind_pt");
}

struct Evaluation {
  std::vector<CheckResult> checks;
  size_t failures = 0, warnings = 0;
};

Evaluation evaluate_for(Context& c) {
  Evaluation e;
  auto add = [&](CheckResult r) {
    if (r.status == CheckStatus::fail) ++e.failures;
    if (r.status == CheckStatus::warn) ++e.warnings;
    e.checks.push_back(std::move(r));
  };
  for (const auto& key : c.spec.order) {
    if (key == "gpu_compute_capability")
      add(check_arch(c));
    else if (key == "memory_bandwidth_gbps")
      add(check_quantity(c, "Memory bandwidth", *c.spec.memory_bandwidth_gbps, "GB/s", "bandwidth",
                         bandwidth_of, bandwidth_ok));
    else if (key == "memory_gb_min")
      add(check_quantity(c, "Device memory", *c.spec.memory_gb_min, "GB", "memory", memory_gib_of,
                         memory_ok));
    else if (key == "driver_version_min")
      add(check_driver(c));
    else if (key == "vendor")
      add(check_vendor(c));
    else if (key == "device_count_min")
      add(check_count(c));
    else if (key == "kernel_version_min")
      add(check_kernel(c));
  }
  for (const auto& d : c.spec.dependencies) {
    add(check_dep_version(c, d));
    if (d.vendor_agnostic_wheel) add(check_wheel(c));
    if (d.full_distribution) add(check_distributed(c));
  }
  return e;
}

}  // namespace

Verdict evaluate_contract(const ContractSpec& spec, const Inventory& inventory,
                          const PythonFacts& python, const Registry& registry) {
  std::vector<std::string> vendors;
  for (const auto& d : inventory.devices)
    if (d.bound() && std::find(vendors.begin(), vendors.end(), d.vendor) == vendors.end())
      vendors.push_back(d.vendor);
  if (!spec.vendors.empty()) {
    std::vector<std::string> allowed;
    for (const auto& v : spec.vendors)
      if (std::find(vendors.begin(), vendors.end(), v) != vendors.end()) allowed.push_back(v);
    if (!allowed.empty()) vendors = allowed;  // else: the vendor check fails on its own
  }
  if (vendors.empty()) vendors.push_back("");

  std::optional<Evaluation> best;
  for (const auto& v : vendors) {
    Context c{spec, inventory, python, registry, v, {}, 1};
    for (const auto& d : inventory.devices)
      if (!v.empty() && d.vendor == v && d.bound()) c.devices.push_back(&d);
    if (spec.device_count_min) c.need = static_cast<size_t>(*spec.device_count_min);
    auto e = evaluate_for(c);
    if (!best || std::pair(e.failures, e.warnings) < std::pair(best->failures, best->warnings))
      best = std::move(e);
  }
  return Verdict{std::move(best->checks)};
}

}  // namespace anygpu
