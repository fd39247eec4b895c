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
  auto choice = choose_replacement(data, inv, t.version);
  if (!choice) return "anygpu wheel";
  return cat({choice->pip, "   (anygpu wheel explains the choice)"});
}

std::string vendor_list(const Inventory& inv) {
  std::set<std::string> v;
  for (const auto& d : inv.devices) v.insert(d.vendor);
  return join(std::vector<std::string>(v.begin(), v.end()), ", ");
}

// What torch calls a build kind, and what its builds say on a host without their devices.
struct BuildKind {
  std::string_view kind, name, without_devices;
};
constexpr BuildKind kBuildKinds[] = {
    {"cuda", "CUDA", "this build fails with 'Found no NVIDIA driver on your system'"},
    {"rocm", "ROCm", "this build reports 'No HIP GPUs are available'"},
    {"xpu", "XPU", "torch.xpu.is_available() is False"},
};

const BuildKind& build_kind(std::string_view kind) {
  for (const auto& k : kBuildKinds)
    if (k.kind == kind) return k;
  return kBuildKinds[0];
}

// The devices PyTorch's own wheels of `kind` run on: those of the vendors whose registry
// torch.build is that kind (nvidia: cuda, amd: rocm, intel: xpu). A vendor with its own build
// of the same kind (Hygon's DTK torch is a ROCm build) is not among them.
struct Served {
  std::vector<const Device*> devices;
  std::vector<std::string> vendor_names;  // display names of every vendor served, "NVIDIA"
  std::vector<std::string> own_build;     // vendors here that need their own build of `kind`
};

Served served_by(const Inventory& inv, std::string_view kind) {
  Served s;
  const auto& registry = Registry::builtin();
  for (const auto& v : registry.vendors()) {
    auto b = v.torch_build();
    if (b.kind == kind && b.pytorch_index) s.vendor_names.emplace_back(v.display_name);
  }
  std::set<std::string> own;
  for (const auto& d : inv.devices) {
    const Vendor* v = registry.vendor(d.vendor);
    auto b = v ? v->torch_build() : VendorTorchBuild{};
    if (b.kind != kind) continue;
    if (b.pytorch_index)
      s.devices.push_back(&d);
    else if (own.insert(d.vendor).second)
      s.own_build.emplace_back(v->display_name);
  }
  return s;
}

std::string device_name(const Device& d) {
  if (d.name) return *d.name;
  const Vendor* v = Registry::builtin().vendor(d.vendor);
  return cat({v ? v->display_name : std::string_view(d.vendor), " device"});
}

// A build of a kind PyTorch publishes (cuda, rocm, xpu) on a host without the devices it
// serves.
bool check_vendor(const TorchBuild& t, const Served& served, const Inventory& inv,
                  const std::string& fix, std::vector<Finding>& out) {
  if (!served.devices.empty()) return true;
  const auto& k = build_kind(t.kind());
  std::string detail;
  if (inv.devices.empty()) {
    detail = cat({"No accelerator was found; ", k.without_devices, "."});
  } else {
    std::vector<std::string> sentences{cat({"Devices here: ", vendor_list(inv), "."})};
    for (const auto& name : served.own_build)
      sentences.push_back(
          cat({name, " devices need ", name, "'s own ", k.name, " build of torch."}));
    if (served.own_build.empty())
      sentences.push_back(cat({"A ", k.name, " wheel cannot use them."}));
    detail = join(sentences, " ");
  }
  out.push_back({"torch.vendor-mismatch", Severity::error,
                 cat({"torch ", t.version, " is a ", k.name, " build but the host has no ",
                      join(served.vendor_names, " or "), " GPU"}),
                 detail, fix});
  return false;
}

const WheelVariant* table_variant(const WheelData& data, const TorchBuild& t,
                                  const std::string& variant, const TorchRelease** release) {
  const auto* pkg = data.package("torch");
  *release = pkg ? pkg->release(t.version) : nullptr;
  return *release ? (*release)->variant(variant) : nullptr;
}

void check_cuda(const TorchBuild& t, const std::string& variant, const WheelData& data,
                const std::vector<const Device*>& gpus, const std::string& fix,
                std::vector<Finding>& out) {
  const TorchRelease* rel = nullptr;
  const auto* v = table_variant(data, t, variant, &rel);
  // The toolkit torch reports, else the one the wheel table gives its variant.
  std::string cuda = t.cuda.value_or(v ? v->cuda : std::string());
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
  if (!v) return;  // a build the table does not know: its arch list is unknown
  for (const auto* d : gpus)
    if (d->arch && !cuda_arch_covered(v->arches, v->ptx, *d->arch)) {
      out.push_back(
          {"torch.arch-unsupported", Severity::error,
           cat({"torch ", t.version, " has no kernels for ", *d->arch, " (", device_name(*d), ")"}),
           cat({variant, " builds of torch ", rel->version, " carry ", join(v->arches, " "),
                v->ptx ? cat({" + PTX ", *v->ptx}) : std::string(),
                "; this GPU fails with 'no kernel image is available for execution on the "
                "device'."}),
           fix});
      break;
    }
}

void check_rocm(const TorchBuild& t, const std::string& variant, const WheelData& data,
                const std::vector<const Device*>& gpus, const std::string& fix,
                std::vector<Finding>& out) {
  const TorchRelease* rel = nullptr;
  const auto* v = table_variant(data, t, variant, &rel);
  if (!v) return;
  for (const auto* d : gpus)
    if (d->arch && std::find(v->gfx.begin(), v->gfx.end(), *d->arch) == v->gfx.end()) {
      out.push_back(
          {"torch.arch-unsupported", Severity::error,
           cat({"torch ", t.version, " has no kernels for ", *d->arch, " (", device_name(*d), ")"}),
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
  if (kind == "cuda" || kind == "rocm" || kind == "xpu") {
    auto served = served_by(inventory, kind);
    if (!check_vendor(t, served, inventory, fix, out)) return out;
    if (kind == "cuda") check_cuda(t, variant, data, served.devices, fix, out);
    if (kind == "rocm") check_rocm(t, variant, data, served.devices, fix, out);
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
