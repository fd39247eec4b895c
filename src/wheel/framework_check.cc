#include "wheel/framework_check.h"

#include <algorithm>
#include <cctype>

#include "probe/runtimes.h"
#include "registry/registry.h"
#include "registry/vendor_names.h"
#include "select/select.h"
#include "util/pep440.h"
#include "util/strings.h"
#include "wheel/choose.h"
#include "wheel/recommend.h"

namespace anygpu {

namespace {

// What torch calls a build kind, and what its builds say on a host without their devices.
struct BuildKind {
  std::string_view kind, name, words, without_devices;
};
constexpr BuildKind kBuildKinds[] = {
    {"cuda", "CUDA", "CUDA (+cu…)", "torch reports 'Found no NVIDIA driver on your system'"},
    {"rocm", "ROCm", "ROCm (+rocm…)", "torch reports 'No HIP GPUs are available'"},
    {"xpu", "XPU", "XPU (+xpu)", "torch.xpu.is_available() is False"},
};

const BuildKind* build_kind(std::string_view kind) {
  for (const auto& k : kBuildKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

// One of PyTorch's own wheels (its local label is one PyTorch publishes, or none, as on PyPI),
// not a vendor's build of torch such as Hygon DTK's "+das…".
bool is_pytorch_wheel(const TorchBuild& t) {
  auto plus = t.version.find('+');
  if (plus == std::string::npos) return true;
  auto local = to_lower(std::string_view(t.version).substr(plus + 1));
  auto digits_after = [&](std::string_view prefix, std::string_view more) {
    if (local.compare(0, prefix.size(), prefix) != 0 || local.size() == prefix.size()) return false;
    return std::all_of(local.begin() + static_cast<long>(prefix.size()), local.end(), [&](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || more.find(c) != std::string_view::npos;
    });
  };
  return local == "cpu" || local == "xpu" || digits_after("cu", "") || digits_after("rocm", ".");
}

// The wheel table's plugin (or extension) package of `vendor`, when it is installed.
std::string installed_plugin(const PythonEnv& env, const WheelData& data,
                             const std::string& vendor) {
  const auto* p = data.plugin(vendor);
  if (!p || p->package == "torch" || !env.dist(normalize_dist_name(p->package))) return "";
  return p->package;
}

std::string device_name(const Device& d) {
  if (d.name) return *d.name;
  return cat({vendor_display_name(d.vendor), " device"});
}

// `anygpu wheel`'s choice in place of the installed build, worded for the build `need`ed:
// "install the ROCm (+rocm…) build: pip install …", or, where the wheel table has no such build
// for these devices, its reason and what it picks instead.
std::string install_advice(const WheelData& data, const Inventory& inv, const TorchBuild& t,
                           const std::string& vendor, std::string_view need,
                           const std::optional<pep440::SpecifierSet>& range) {
  const auto* k = build_kind(need);
  std::string words =
      k ? cat({"the ", k->words, " build"}) : std::string("a build for these devices");
  auto choice = recommend_replacement(data, inv, t.version, vendor, range);
  if (!choice) return cat({"install ", words, " (see `anygpu wheel`)"});
  const auto* pkg = data.package("torch");
  const auto* rel = pkg ? pkg->release(choice->version) : nullptr;
  const auto* variant = rel ? rel->variant(choice->variant) : nullptr;
  if (k && variant && variant->kind == need) return cat({"install ", words, ": ", choice->pip});
  return cat({choice->reason, ": ", choice->pip});
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
           cat({"upgrade the NVIDIA driver to >= ", *floor, ", or ", fix})});
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

// A build torch reports as another kind than the devices need.
Finding mismatch(const TorchBuild& t, const std::string& vendor, std::string detail,
                 std::string fix) {
  return {"torch.vendor-mismatch", Severity::error,
          cat({"torch ", t.version, " is a ", build_kind(t.kind())->name,
               " build, which does not run on ", vendor_display_name(vendor), " devices"}),
          std::move(detail), std::move(fix)};
}

Finding cpu_build(const TorchBuild& t, const std::string& vendor, std::string fix) {
  return {"torch.cpu-build", Severity::warning,
          cat({"torch ", t.version, " is the CPU build on a host with ",
               vendor_display_name(vendor), " devices"}),
          "It runs, but never uses the accelerators.", std::move(fix)};
}

bool same_version(const std::string& a, const std::string& b) {
  auto va = pep440::Version::parse(a), vb = pep440::Version::parse(b);
  return va && vb ? pep440::compare(*va, *vb) == 0 : a == b;
}

// PEP 440 order: 2.1.0.post17 is newer than 2.1.0.post8.
bool newer(const std::string& a, const std::string& b) {
  auto va = pep440::Version::parse(a), vb = pep440::Version::parse(b);
  return va && vb ? pep440::compare(*va, *vb) > 0 : a > b;
}

// "2.5.1+cpu" -> "2.5.1": the release a plugin pair names.
std::string torch_release(const std::string& version) {
  auto v = pep440::Version::parse(version);
  return v ? v->base_version().str() : version.substr(0, version.find('+'));
}

const RuntimeComponent* runtime_of(const Inventory& inv, std::string_view vendor,
                                   std::string_view component) {
  for (const auto& r : inv.runtimes)
    if (r.vendor == vendor && r.component == component) return &r;
  return nullptr;
}

// The installed plugin against the wheel table's pairs: the torch release it was built for,
// and (Ascend) the CANN release it pairs with. A plugin built for another torch or CANN fails
// at import with undefined symbols in its library (libtorch_npu.so).
void check_plugin_pairing(const PythonEnv& env, const Inventory& inv, const VendorPlugin& p,
                          TorchBuildJudgement& j) {
  const auto* dist = env.dist(normalize_dist_name(p.package));
  if (!dist || p.pairs.empty()) return;
  const auto& t = *env.torch;
  std::vector<const PluginPair*> rows;
  for (const auto& pr : p.pairs)
    if (same_version(pr.plugin, dist->version)) rows.push_back(&pr);
  auto plugin_words = cat({p.package, " ", dist->version});
  if (rows.empty()) {
    j.findings.push_back(
        {"torch.plugin-unpaired", Severity::warning,
         cat({"cannot tell which torch and CANN ", plugin_words, " pairs with"}),
         cat({p.package, " ", dist->version, " is not in the version table (", p.source,
              "); its pairing is not judged. Unknown is not ok."}),
         cat({"use a ", p.package, " release the table lists (see `anygpu wheel`)"})});
    return;
  }
  auto release = torch_release(t.version);
  std::vector<std::string> torches, canns;
  for (const auto* r : rows) {
    if (std::find(torches.begin(), torches.end(), r->torch) == torches.end())
      torches.push_back(r->torch);
    if (!r->cann.empty() && std::find(canns.begin(), canns.end(), r->cann) == canns.end())
      canns.push_back(r->cann);
  }
  const auto* cann = runtime_of(inv, p.vendor, "cann");
  // The table's plugin for this torch on this CANN, when it has one.
  auto paired_plugin = [&]() -> const PluginPair* {
    const PluginPair* best = nullptr;
    for (const auto& pr : p.pairs)
      if (pr.torch == release && (!cann || pr.cann.empty() || pr.cann == cann->version) &&
          (!best || newer(pr.plugin, best->plugin)))
        best = &pr;
    return best;
  };
  auto instead = [&](const std::string& otherwise) {
    const auto* pr = paired_plugin();
    return pr ? cat({"install ", p.package, "==", pr->plugin, " (it pairs with torch ", pr->torch,
                     pr->cann.empty() ? std::string() : cat({" on CANN ", pr->cann}), ")"})
              : otherwise;
  };
  if (std::find(torches.begin(), torches.end(), release) == torches.end()) {
    j.findings.push_back(
        {"torch.plugin-torch-mismatch", Severity::error,
         cat({plugin_words, " is built for torch ", join(torches, "/"), ", not torch ", t.version}),
         cat({"The version table (", p.source, ") pairs ", plugin_words, " (", dist->path,
              ") with torch ", join(torches, "/"),
              "; importing it into another torch fails with an undefined "
              "symbol in its library."}),
         instead(cat({"install torch==", torches.front(), ", or a ", p.package,
                      " release built for torch ", release}))});
    return;
  }
  if (canns.empty()) return;  // the table names no CANN for these rows
  if (!cann) {
    j.findings.push_back(
        {"torch.plugin-cann-unknown", Severity::warning,
         cat({"cannot tell whether ", plugin_words, " matches the CANN it runs with"}),
         cat({plugin_words, " pairs with CANN ", join(canns, "/"),
              "; the CANN version is not known here (no ascend_toolkit_install.info read)."}),
         cat({"install CANN ", join(canns, "/"),
              ", or check `anygpu detect` for the CANN "
              "version"})});
    return;
  }
  if (std::find(canns.begin(), canns.end(), cann->version) != canns.end()) return;
  j.findings.push_back(
      {"torch.plugin-cann-mismatch", Severity::error,
       cat({plugin_words, " pairs with CANN ", join(canns, "/"), ", not CANN ", cann->version}),
       cat({"The version table (", p.source, ") pairs ", plugin_words, " (", dist->path,
            ") with torch ", join(torches, "/"), " on CANN ", join(canns, "/"),
            "; the CANN here is ", cann->version, " (", cann->source,
            "). A torch_npu built for another CANN fails at import with undefined symbols."}),
       instead(cat({"install CANN ", join(canns, "/"), ", or a ", p.package,
                    " release paired "
                    "with CANN ",
                    cann->version, " (see `anygpu wheel`)"}))});
}

// A CPU torch and the vendor's plugin (torch_npu, torch_musa, habana-torch-plugin …).
void judge_plugin(const PythonEnv& env, const Inventory& inv, const WheelData& data,
                  const std::string& vendor, const std::optional<pep440::SpecifierSet>& range,
                  TorchBuildJudgement& j) {
  const auto& t = *env.torch;
  const auto* p = data.plugin(vendor);
  std::string package = p ? p->package : std::string("its plugin");
  j.need = "plugin";
  auto choice = recommend_replacement(data, inv, t.version, vendor, range);
  auto pip = choice ? ": " + choice->pip : std::string(" (see `anygpu wheel`)");
  if (t.kind() != "cpu") {
    j.findings.push_back(
        mismatch(t, vendor,
                 cat({vendor_display_name(vendor), " devices run a CPU build of torch with the ",
                      package, " plugin; ", build_kind(t.kind())->without_devices, "."}),
                 cat({"install the CPU build and ", package, pip})));
    return;
  }
  j.with = installed_plugin(env, data, vendor);
  if (!j.with.empty() && p) check_plugin_pairing(env, inv, *p, j);
  if (j.with.empty())
    j.findings.push_back(
        {"torch.plugin-missing", Severity::warning,
         cat({"torch ", t.version, " is the CPU build without ", package}),
         cat({"torch will not see the ", vendor_display_name(vendor), " devices."}),
         cat({"install ", package, " for this torch version", pip})});
}

// The vendor's own build of torch (Hygon DTK, Iluvatar CoreX, MetaX MACA …): one of PyTorch's
// wheels is the wrong one; the vendor's own is beyond what the wheel table can judge.
void judge_vendor_build(const TorchBuild& t, const WheelData& data, const std::string& vendor,
                        const VendorTorchBuild& build, TorchBuildJudgement& j) {
  j.need = "vendor";
  const auto* k = build_kind(build.kind);
  auto name = vendor_display_name(vendor);
  const auto* p = data.plugin(vendor);
  std::string where = p && !p->note.empty() ? p->note : cat({"see ", name, "'s documentation"});
  if (!is_pytorch_wheel(t)) {
    j.findings.push_back({"torch.vendor-build", Severity::info,
                          cat({"torch ", t.version, " is not one of PyTorch's builds"}),
                          cat({"anygpu cannot judge it for ", name, " devices: ", where, "."}),
                          ""});
    return;
  }
  if (t.kind() == "cpu") {
    j.findings.push_back(
        cpu_build(t, vendor, cat({"install ", name, "'s build of torch: ", where})));
    return;
  }
  j.findings.push_back(mismatch(
      t, vendor,
      cat({name, " devices need ", name, "'s own ", k ? cat({k->name, " "}) : std::string(),
           "build of torch; PyTorch's wheels do not carry their kernels."}),
      cat({"install ", name, "'s build of torch: ", where})));
}

}  // namespace

std::string torch_build_words(const TorchBuild& t) {
  auto k = t.kind();
  if (k == "cuda") return t.cuda ? "CUDA " + *t.cuda : "CUDA";
  if (k == "rocm") return t.hip ? "ROCm/HIP " + *t.hip : "ROCm";
  if (k == "xpu") return "XPU";
  return "CPU";
}

const Finding* TorchBuildJudgement::worst() const {
  const Finding* out = nullptr;
  for (const auto& f : findings)
    if (!out || f.severity > out->severity) out = &f;
  return out;
}

TorchBuildJudgement judge_torch_build(const PythonEnv& env, const Inventory& inventory,
                                      const WheelData& data, const std::string& vendor,
                                      const std::vector<const Device*>& devices,
                                      const std::optional<pep440::SpecifierSet>& range) {
  TorchBuildJudgement j;
  const auto& t = *env.torch;
  auto kind = t.kind();
  if (vendor.empty() || vendor == "none") {
    j.need = "cpu";
    if (kind != "cpu")
      j.findings.push_back(
          {"torch.no-accelerator", Severity::warning,
           cat({"torch ", t.version, " is a ", torch_build_words(t),
                " build on a host without an accelerator"}),
           cat({"torch runs on the CPU only: ", build_kind(kind)->without_devices, "."}),
           "that is fine for CPU work; otherwise run on a host with the matching accelerator"});
    return j;
  }
  const Vendor* v = Registry::builtin().vendor(vendor);
  auto build = v ? v->torch_build() : VendorTorchBuild{};
  if (build.kind == "plugin") {
    judge_plugin(env, inventory, data, vendor, range, j);
    return j;
  }
  if (!build.pytorch_index) {
    judge_vendor_build(t, data, vendor, build, j);
    return j;
  }
  j.need = std::string(build.kind);
  auto advice = install_advice(data, inventory, t, vendor, build.kind, range);
  if (kind == "cpu") {
    // An extension that gives a CPU torch the devices (Intel's IPEX before torch's xpu builds).
    j.with = installed_plugin(env, data, vendor);
    if (j.with.empty()) j.findings.push_back(cpu_build(t, vendor, advice));
    return j;
  }
  if (kind != build.kind) {
    j.findings.push_back(
        mismatch(t, vendor, cat({build_kind(kind)->without_devices, "."}), advice));
    return j;
  }
  auto variant = variant_of_build(t.version, t.cuda, t.hip, t.xpu);
  if (kind == "cuda") check_cuda(t, variant, data, devices, advice, j.findings);
  if (kind == "rocm") check_rocm(t, variant, data, devices, advice, j.findings);
  return j;
}

std::string judged_vendor(const PythonEnv& env, const Inventory& inventory, const WheelData& data) {
  if (inventory.devices.empty() || !env.torch) return "";
  auto kind = env.torch->kind();
  for (const auto& d : inventory.devices) {
    const Vendor* v = Registry::builtin().vendor(d.vendor);
    auto build = v ? v->torch_build() : VendorTorchBuild{};
    bool serves = kind == "cpu" ? !installed_plugin(env, data, d.vendor).empty()
                                : build.pytorch_index && build.kind == kind;
    if (serves) return d.vendor;
  }
  return primary_vendor(inventory);
}

std::vector<Finding> framework_build_findings(const PythonEnv& env, const Inventory& inventory,
                                              const WheelData& data) {
  if (!env.torch || env.torch->version.empty()) return {};
  auto vendor = judged_vendor(env, inventory, data);
  return judge_torch_build(env, inventory, data, vendor, inventory.of_vendor(vendor)).findings;
}

std::vector<Finding> framework_build_findings(const HostRoot& host, const Inventory& inventory,
                                              const std::string& python) {
  (void)host;  // package files are the interpreter's own, outside any simulated root
  auto env = read_python_env(python);
  if (!env)
    return {{"torch.env-unreadable", Severity::info,
             cat({"could not read the packages of ", python}), env.error().message, ""}};
  return framework_build_findings(*env, inventory, wheel_data());
}

}  // namespace anygpu
