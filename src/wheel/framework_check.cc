#include "wheel/framework_check.h"

#include <algorithm>
#include <set>

#include "probe/runtimes.h"
#include "registry/registry.h"
#include "util/strings.h"
#include "wheel/choose.h"

namespace anygpu {

namespace {

std::string fix_for(const WheelData& data, const Inventory& inv, const TorchBuild& t) {
  WheelRequest req;
  auto base = t.version.substr(0, t.version.find('+'));
  const auto* pkg = data.package("torch");
  if (pkg && pkg->release(base)) req.version = base;
  auto choice = choose_wheel(data, inv, req);
  if (!choice || choice->pip.empty()) return "anygpu wheel";
  return cat({choice->pip, "   (anygpu wheel explains the choice)"});
}

bool has(const Inventory& inv, std::string_view vendor) {
  return !inv.of_vendor(vendor).empty();
}

std::string vendor_list(const Inventory& inv) {
  std::set<std::string> v;
  for (const auto& d : inv.devices) v.insert(d.vendor);
  return join(std::vector<std::string>(v.begin(), v.end()), ", ");
}

void check_cuda(const TorchBuild& t, const std::string& variant, const WheelData& data,
                const Inventory& inv, const std::string& fix, std::vector<Finding>& out) {
  auto gpus = inv.of_vendor("nvidia");
  if (gpus.empty()) {
    auto detail = inv.devices.empty()
                      ? std::string(
                            "No accelerator was found; this build fails with 'Found no "
                            "NVIDIA driver on your system'.")
                      : cat({"Devices here: ", vendor_list(inv),
                             ". A +cu wheel cannot use them ('Found no NVIDIA driver')."});
    out.push_back({"torch.vendor-mismatch", Severity::error,
                   cat({"torch ", t.version, " is a CUDA build but the host has no NVIDIA GPU"}),
                   detail, fix});
    return;
  }
  std::string cuda = t.cuda.value_or("");
  if (cuda.empty() && variant.size() > 3)
    cuda = cat({variant.substr(2, variant.size() - 3), ".", variant.substr(variant.size() - 1)});
  std::optional<std::string> driver;
  for (const auto* d : gpus)
    if (!driver && d->driver && d->driver->version) driver = d->driver->version;
  if (driver && !cuda.empty()) {
    auto floor = data.family_driver_min(cuda);
    auto supported = data.cuda_for_driver(*driver);
    if (floor && compare_versions(*driver, *floor).value_or(0) < 0) {
      out.push_back(
          {"torch.cuda-too-new", Severity::error,
           cat({variant, " wheel on a driver that supports CUDA ", supported.value_or("< 11.0")}),
           cat({"torch ", t.version, " is built with CUDA ", cuda,
                ", which needs driver >= ", *floor, "; the driver is ", *driver,
                ". torch fails with 'The NVIDIA driver on your system is too old'."}),
           cat({"upgrade the NVIDIA driver to >= ", *floor,
                ", or install a build it supports: ", fix})});
    } else if (auto tk = data.toolkit_driver_min(cuda);
               tk && compare_versions(*driver, *tk).value_or(0) < 0) {
      out.push_back({"torch.cuda-minor-compat", Severity::info,
                     cat({variant, " wheel runs under CUDA minor version compatibility"}),
                     cat({"Driver ", *driver, " is older than CUDA ", cuda, "'s ", *tk,
                          ": kernels run, but PTX newer than the driver cannot be JIT-compiled."}),
                     ""});
    }
  }
  const auto* pkg = data.package("torch");
  const auto* rel = pkg ? pkg->release(t.version) : nullptr;
  const auto* v = rel ? rel->variant(variant) : nullptr;
  if (!v) return;  // a build the table does not know: its arch list is unknown
  for (const auto* d : gpus)
    if (d->arch && !cuda_arch_covered(v->arches, v->ptx, *d->arch)) {
      out.push_back(
          {"torch.arch-unsupported", Severity::error,
           cat({"torch ", t.version, " has no kernels for ", *d->arch, " (",
                d->name.value_or("NVIDIA GPU"), ")"}),
           cat({variant, " builds of torch ", rel->version, " carry ", join(v->arches, " "),
                v->ptx ? cat({" + PTX ", *v->ptx}) : std::string(),
                "; this GPU fails with 'no kernel image is available for execution on the "
                "device'."}),
           fix});
      break;
    }
}

void check_rocm(const TorchBuild& t, const std::string& variant, const WheelData& data,
                const Inventory& inv, const std::string& fix, std::vector<Finding>& out) {
  auto gpus = inv.of_vendor("amd");
  if (gpus.empty()) {
    out.push_back({"torch.vendor-mismatch", Severity::error,
                   cat({"torch ", t.version, " is a ROCm build but the host has no AMD GPU"}),
                   inv.devices.empty()
                       ? std::string("No accelerator was found; this build reports "
                                     "'No HIP GPUs are available'.")
                       : cat({"Devices here: ", vendor_list(inv),
                              has(inv, "hygon") ? ". Hygon DCUs need the DTK build of torch."
                                                : ". A +rocm wheel cannot use them."}),
                   fix});
    return;
  }
  const auto* pkg = data.package("torch");
  const auto* rel = pkg ? pkg->release(t.version) : nullptr;
  const auto* v = rel ? rel->variant(variant) : nullptr;
  if (!v) return;
  for (const auto* d : gpus)
    if (d->arch && std::find(v->gfx.begin(), v->gfx.end(), *d->arch) == v->gfx.end()) {
      out.push_back(
          {"torch.arch-unsupported", Severity::error,
           cat({"torch ", t.version, " has no kernels for ", *d->arch, " (",
                d->name.value_or("AMD GPU"), ")"}),
           cat({variant, " builds of torch ", rel->version, " target ", join(v->gfx, " "), "."}),
           fix});
      break;
    }
}

}  // namespace

std::vector<Finding> framework_build_findings(const PythonEnv& env, const Inventory& inventory,
                                              const WheelData& data) {
  std::vector<Finding> out;
  if (!env.torch || env.torch->version.empty()) return out;
  const auto& t = *env.torch;
  auto variant = variant_of_build(t.version, t.cuda, t.hip, t.xpu);
  auto kind = t.kind();
  auto fix = fix_for(data, inventory, t);
  if (kind == "cuda") {
    check_cuda(t, variant, data, inventory, fix, out);
  } else if (kind == "rocm") {
    check_rocm(t, variant, data, inventory, fix, out);
  } else if (kind == "xpu") {
    if (!has(inventory, "intel"))
      out.push_back({"torch.vendor-mismatch", Severity::error,
                     cat({"torch ", t.version, " is an XPU build but the host has no Intel GPU"}),
                     inventory.devices.empty()
                         ? std::string("No accelerator was found.")
                         : cat({"Devices here: ", vendor_list(inventory), "."}),
                     fix});
  } else if (!inventory.devices.empty()) {
    auto vendor = primary_vendor(inventory);
    const Vendor* v = Registry::builtin().vendor(vendor);
    auto build = v ? v->torch_build() : VendorTorchBuild{};
    bool plugin_vendor = !build.pytorch_index || build.kind == "plugin";
    // A CPU torch is exactly right under a plugin (torch_npu, torch_musa …) when it is present.
    if (!plugin_vendor)
      out.push_back(
          {"torch.cpu-build", Severity::warning,
           cat({"torch ", t.version, " is the CPU build on a host with ", vendor, " GPUs"}),
           "It runs, but never uses the accelerator.", fix});
  }
  return out;
}

std::vector<Finding> framework_build_findings(const HostRoot& host, const Inventory& inventory,
                                              const std::string& python) {
  (void)host;  // package files are the interpreter's own, outside any simulated root
  auto env = read_python_env(python);
  if (!env)
    return {{"torch.env-unreadable", Severity::info,
             cat({"could not read the packages of ", python}), env.error().message, ""}};
  return framework_build_findings(*env, inventory, builtin_wheel_data());
}

}  // namespace anygpu
