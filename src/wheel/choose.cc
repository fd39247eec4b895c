#include "wheel/choose.h"

#include <algorithm>
#include <array>
#include <functional>
#include <set>

#include "model/arch.h"
#include "probe/runtimes.h"
#include "registry/registry.h"
#include "select/select.h"
#include "util/pep440.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// A compute capability from an arch-list entry or a device ("sm_90a": the suffix does not
// matter for coverage); nullopt for anything but an NVIDIA arch.
std::optional<Arch> parse_sm(std::string_view s) {
  auto a = Arch::parse(s);
  if (!a || !a->is_nvidia()) return std::nullopt;
  return a;
}

std::string arch_span(const std::vector<std::string>& arches) {
  if (arches.empty()) return "";
  if (arches.size() == 1) return arches.front();
  return cat({arches.front(), "…", arches.back()});
}

std::string pip_line(const std::string& pkgs, const std::string& index) {
  return index.empty() ? cat({"pip install ", pkgs})
                       : cat({"pip install ", pkgs, " --index-url ", index});
}
std::string uv_line(const std::string& pkgs, const std::string& index) {
  return index.empty() ? cat({"uv pip install ", pkgs})
                       : cat({"uv pip install ", pkgs, " --index-url ", index});
}

const std::string* runtime_version(const Inventory& inv, std::string_view vendor,
                                   std::string_view component) {
  for (const auto& r : inv.runtimes)
    if (r.vendor == vendor && r.component == component) return &r.version;
  return nullptr;
}

std::string name_and_address(const Device& d) {
  return cat({d.name.value_or(d.vendor), " (", d.pci.address.str(), ")"});
}

struct Ctx {
  const WheelData& data;
  const Inventory& inv;
  const WheelPackage& pkg;
  const TorchRelease& rel;
  std::string pin;  // "2.9.1"
  std::vector<const Device*> devices;
  const WheelRequest& request;
};

void finish(const Ctx& c, WheelChoice& out, const std::string& variant) {
  out.variant = variant;
  out.accelerated = variant != "cpu";
  out.index_url = c.data.index_for(variant);
  auto pkgs = cat({c.pkg.name, "==", c.pin});
  out.pip = pip_line(pkgs, out.index_url);
  out.uv = uv_line(pkgs, out.index_url);
}

void cpu_fallback(const Ctx& c, WheelChoice& out, const std::string& why) {
  finish(c, out, "cpu");
  out.reason = why;
}

// A vendor whose own framework build the table does not list (a vendor described by data
// alone, such as T-Head's PPU): the CPU build would leave its devices idle while select hands
// the experiment the vendor's torch device, so the headline names where the build comes from,
// and the CPU build stays an alternative.
void vendor_build_unknown(const Ctx& c, const Vendor& vendor, WheelChoice& out) {
  if (!c.request.version) out.version.clear();
  out.variant = std::string(vendor.torch_package.empty() ? c.pkg.name : vendor.torch_package);
  out.accelerated = true;
  std::string where;
  for (const auto& s : vendor.sources)
    if (s.name == "torch.build") where = cat({" (", s.value, ")"});
  auto who = vendor.display_name.empty() ? vendor.id : vendor.display_name;
  out.reason = cat({std::string(who), " devices take the vendor's own ", out.variant, " build",
                    where, "; the wheel table lists no package index for it"});
}

// A newer release that has a variant covering every device, for the hint when none does.
std::string newer_release_hint(const Ctx& c, const std::function<bool(const WheelVariant&)>& fits) {
  for (const auto& r : c.pkg.releases) {
    if (compare_versions(r.version, c.rel.version).value_or(0) <= 0) continue;
    for (const auto& v : r.variants)
      if (fits(v)) return cat({"; ", c.pkg.name, " ", r.version, " ", v.name, " has them"});
  }
  return "";
}

// " (torch 2.10 rocm7.0 is the newest build it allows)": the newest older release that fits.
std::string older_release_hint(const Ctx& c, const std::function<bool(const WheelVariant&)>& fits) {
  for (auto r = c.pkg.releases.rbegin(); r != c.pkg.releases.rend(); ++r) {
    if (compare_versions(r->version, c.rel.version).value_or(0) >= 0) continue;
    for (const auto& v : r->variants)
      if (fits(v))
        return cat({" (", c.pkg.name, " ", r->version, " ", v.name,
                    " is the newest "
                    "build it supports)"});
  }
  return "";
}

// The oldest compute capability a build runs on (its lowest cubin, or its PTX): what decides
// for a GPU whose architecture is unknown. 10000 for a build without NVIDIA targets.
int oldest_sm_covered(const WheelVariant& v) {
  int oldest = 10000;
  for (const auto& a : v.arches)
    if (auto b = parse_sm(a); b && b->variant != 'a') oldest = std::min(oldest, b->sm());
  if (v.ptx)
    if (auto p = parse_sm(*v.ptx); p && p->variant != 'a') oldest = std::min(oldest, p->sm());
  return oldest;
}

// Among `candidates` (newest CUDA first), the build with the broadest architecture coverage:
// the oldest GPU it runs on, then the most cubins; the newer CUDA on a tie. An unknown GPU is
// as likely old as new, and a build without its kernels fails only at the first launch.
const WheelVariant* broadest_coverage(const std::vector<const WheelVariant*>& candidates) {
  const WheelVariant* best = nullptr;
  for (const auto* v : candidates) {
    if (!best) {
      best = v;
      continue;
    }
    int a = oldest_sm_covered(*v), b = oldest_sm_covered(*best);
    if (a < b || (a == b && v->arches.size() > best->arches.size())) best = v;
  }
  return best;
}

std::string arch_coverage(const WheelVariant& v) {
  return cat({v.name, ": ", arch_span(v.arches), v.ptx ? cat({" + PTX ", *v.ptx}) : std::string()});
}

void choose_cuda(const Ctx& c, WheelChoice& out) {
  std::optional<std::string> driver;
  std::vector<std::string> unknown_arch;
  for (const auto* d : c.devices) {
    if (!driver && d->driver && d->driver->version) driver = d->driver->version;
    if (!d->arch) unknown_arch.push_back(name_and_address(*d));
  }
  auto arch_ok = [&](const WheelVariant& v, std::string* missing) {
    for (const auto* d : c.devices)
      if (d->arch && !cuda_arch_covered(v.arches, v.ptx, *d->arch)) {
        if (missing) *missing = cat({*d->arch, " (", d->name.value_or("GPU"), ")"});
        return false;
      }
    return true;
  };
  auto host_driver_ok = [&](const WheelVariant& v) {
    if (!driver) return true;  // cannot tell: decided by arch alone, said in the reason
    auto floor = c.data.family_driver_min(v.cuda);
    return floor && compare_versions(*driver, *floor).value_or(-1) >= 0;
  };
  auto driver_ok = [&](const WheelVariant& v) {
    return c.request.assume_driver_upgrade || host_driver_ok(v);
  };
  std::vector<const WheelVariant*> cuda;
  for (const auto& v : c.rel.variants)
    if (v.kind == "cuda") cuda.push_back(&v);
  std::sort(cuda.begin(), cuda.end(), [](const auto* a, const auto* b) {
    return compare_versions(a->cuda, b->cuda).value_or(0) > 0;
  });
  if (cuda.empty()) {
    cpu_fallback(c, out, cat({c.pkg.name, " ", c.rel.version, " has no CUDA build in the table"}));
    return;
  }
  std::vector<const WheelVariant*> runnable;
  for (const auto* v : cuda)
    if (driver_ok(*v) && arch_ok(*v, nullptr)) runnable.push_back(v);
  // Known architectures: the newest build that covers them. An unknown one: never the newest
  // by default (CUDA 13 builds have no Volta kernels), the broadest.
  const WheelVariant* chosen = runnable.empty()       ? nullptr
                               : unknown_arch.empty() ? runnable.front()
                                                      : broadest_coverage(runnable);
  for (const auto* v : cuda) {
    if (v == chosen) continue;
    WheelAlternative a{v->name, c.data.index_for(v->name), false, ""};
    std::string missing;
    if (!driver_ok(*v))
      a.note = cat({"needs driver >= ", *c.data.family_driver_min(v->cuda), " (CUDA ",
                    v->cuda.substr(0, v->cuda.find('.')), ".x); host has ", *driver});
    else if (!arch_ok(*v, &missing))
      a.note = cat({"no kernels for ", missing, "; has ", arch_span(v->arches)});
    else {
      a.fits = true;
      a.note = unknown_arch.empty()
                   ? cat({"also fits (CUDA ", v->cuda, ")"})
                   : cat({"fits if the GPU of unknown architecture is one it has kernels for (",
                          arch_coverage(*v), ")"});
    }
    out.alternatives.push_back(std::move(a));
  }
  if (!chosen) {
    std::string missing;
    bool any_arch =
        std::any_of(cuda.begin(), cuda.end(), [&](const auto* v) { return arch_ok(*v, &missing); });
    if (!any_arch) {
      arch_ok(*cuda.front(), &missing);
      cpu_fallback(
          c, out,
          cat({"no CUDA build of ", c.pkg.name, " ", c.rel.version, " has kernels for ", missing,
               newer_release_hint(c,
                                  [&](const WheelVariant& v) {
                                    return v.kind == "cuda" && driver_ok(v) && arch_ok(v, nullptr);
                                  }),
               "; the CPU build runs meanwhile"}));
    } else {
      cpu_fallback(
          c, out,
          cat({"driver ", *driver, " is older than every CUDA build of ", c.pkg.name, " ",
               c.rel.version, " needs (oldest floor ", *c.data.family_driver_min(cuda.back()->cuda),
               "); upgrade the NVIDIA driver, the CPU build runs meanwhile"}));
    }
    return;
  }
  finish(c, out, chosen->name);
  if (!host_driver_ok(*chosen))
    out.needs =
        cat({"NVIDIA driver >= ", *c.data.family_driver_min(chosen->cuda), " (CUDA ",
             chosen->cuda.substr(0, chosen->cuda.find('.')), ".x); the host has ", *driver});
  std::set<std::string> arches;
  for (const auto* d : c.devices)
    if (d->arch) arches.insert(*d->arch);
  std::string why =
      unknown_arch.empty()
          ? cat({"newest CUDA build of ", c.pkg.name, " ", c.rel.version})
          : cat({"architecture unknown for ", join(unknown_arch, ", "), ": the CUDA build of ",
                 c.pkg.name, " ", c.rel.version, " with the broadest architecture coverage (",
                 arch_coverage(*chosen), "), not the newest"});
  if (driver)
    why += cat({unknown_arch.empty() ? " the driver supports (" : "; the driver supports it (",
                *driver, " >= ", *c.data.family_driver_min(chosen->cuda), " for CUDA ",
                chosen->cuda.substr(0, chosen->cuda.find('.')), ".x)"});
  else
    why += cat({"; the driver version is unknown: CUDA ", chosen->cuda,
                " needs >= ", *c.data.family_driver_min(chosen->cuda)});
  if (!arches.empty())
    why += cat({unknown_arch.empty() ? " with kernels for " : "; it has kernels for ",
                join(std::vector<std::string>(arches.begin(), arches.end()), ", "), " (",
                chosen->name, ": ", arch_span(chosen->arches),
                chosen->ptx ? cat({" + PTX ", *chosen->ptx}) : std::string(), ")"});
  if (driver) {
    auto tk = c.data.toolkit_driver_min(chosen->cuda);
    if (tk && compare_versions(*driver, *tk).value_or(0) < 0)
      why += cat({"; below CUDA ", chosen->cuda, "'s own ", *tk,
                  " it runs under minor version compatibility (no JIT of newer PTX)"});
  }
  out.reason = why;
}

void choose_rocm(const Ctx& c, WheelChoice& out) {
  std::set<std::string> gfx;
  for (const auto* d : c.devices)
    if (d->arch) gfx.insert(*d->arch);
  const std::string* host_rocm = runtime_version(c.inv, out.vendor, "rocm");
  auto covers = [&](const WheelVariant& v) {
    return std::all_of(gfx.begin(), gfx.end(), [&](const std::string& g) {
      return std::find(v.gfx.begin(), v.gfx.end(), g) != v.gfx.end();
    });
  };
  std::vector<const WheelVariant*> rocm;
  for (const auto& v : c.rel.variants)
    if (v.kind == "rocm") rocm.push_back(&v);
  std::sort(rocm.begin(), rocm.end(), [](const auto* a, const auto* b) {
    return compare_versions(a->rocm, b->rocm).value_or(0) > 0;
  });
  auto not_newer = [&](const WheelVariant& v) {
    return host_rocm && compare_versions(v.rocm, *host_rocm).value_or(1) <= 0;
  };
  // The kernel driver bounds the user space a wheel may bring (AMD's support matrix).
  const std::string* module = nullptr;
  for (const auto* d : c.devices)
    if (!module && d->driver && d->driver->name == "amdgpu" && d->driver->version)
      module = &*d->driver->version;
  const AmdgpuDriver* kmd = module ? c.data.amdgpu_driver(*module) : nullptr;
  auto host_driver_supports = [&](const WheelVariant& v) {
    if (!kmd) return true;
    auto parts = split(v.rocm, '.');
    auto major_minor = cat({parts[0], ".", parts.size() > 1 ? parts[1] : "0"});
    return std::find(kmd->rocm.begin(), kmd->rocm.end(), major_minor) != kmd->rocm.end();
  };
  auto driver_supports = [&](const WheelVariant& v) {
    return c.request.assume_driver_upgrade || host_driver_supports(v);
  };
  // A GPU of unknown architecture: among the builds otherwise preferred, the one with the most
  // gfx targets (never the newest by default: ROCm 7 builds dropped gfx900-gfx908).
  bool unknown_gfx =
      std::any_of(c.devices.begin(), c.devices.end(), [](const Device* d) { return !d->arch; });
  auto pick = [&](const std::function<bool(const WheelVariant&)>& ok) {
    const WheelVariant* best = nullptr;
    for (const auto* v : rocm)
      if (ok(*v) && (!best || (unknown_gfx && v->gfx.size() > best->gfx.size()))) best = v;
    return best;
  };
  const WheelVariant* chosen =
      pick([&](const WheelVariant& v) { return covers(v) && driver_supports(v) && not_newer(v); });
  if (!chosen)
    chosen = pick([&](const WheelVariant& v) { return covers(v) && driver_supports(v); });
  // Builds that cover the GPUs but that the kernel driver refuses: none is chosen (it would not
  // run), the reason says which driver to upgrade to.
  const WheelVariant* refused = nullptr;
  if (!chosen)
    for (const auto* v : rocm)
      if (!refused && covers(*v)) refused = v;
  auto driver_note = [&](const WheelVariant& v) {
    return cat({"the host's amdgpu kernel driver ", *module, " (ROCm ", kmd->kmd,
                ") supports ROCm user space ", join(kmd->rocm, ", "), ", not ", v.rocm});
  };
  for (const auto* v : rocm) {
    if (v == chosen) continue;
    WheelAlternative a{v->name, c.data.index_for(v->name), covers(*v) && driver_supports(*v), ""};
    a.note =
        a.fits ? cat({"also covers ", join(std::vector<std::string>(gfx.begin(), gfx.end()), ", ")})
        : covers(*v) ? driver_note(*v)
                     : cat({"no kernels for every GPU; targets ", join(v->gfx, " ")});
    out.alternatives.push_back(std::move(a));
  }
  auto targets = join(std::vector<std::string>(gfx.begin(), gfx.end()), ", ");
  if (!chosen && refused) {
    auto newest = *std::max_element(kmd->rocm.begin(), kmd->rocm.end(), [](auto& x, auto& y) {
      return compare_versions(x, y).value_or(0) < 0;
    });
    auto runs = [&](const WheelVariant& v) {
      return v.kind == "rocm" && covers(v) && host_driver_supports(v);
    };
    bool driver_too_old = compare_versions(refused->rocm, newest).value_or(0) > 0;
    cpu_fallback(c, out,
                 cat({"no ROCm build of ", c.pkg.name, " ", c.rel.version, " for ", targets,
                      " runs on this kernel driver: ", driver_note(*refused),
                      driver_too_old ? cat({": upgrade the amdgpu kernel driver first",
                                            older_release_hint(c, runs)})
                                     : newer_release_hint(c, runs),
                      "; the CPU build runs meanwhile"}));
    return;
  }
  if (!chosen) {
    cpu_fallback(c, out,
                 cat({"no ROCm build of ", c.pkg.name, " ", c.rel.version, " targets ",
                      targets.empty() ? std::string("the GPU (architecture unknown)") : targets,
                      newer_release_hint(c,
                                         [&](const WheelVariant& v) {
                                           return v.kind == "rocm" && !gfx.empty() && covers(v);
                                         }),
                      "; the CPU build runs meanwhile"}));
    return;
  }
  finish(c, out, chosen->name);
  std::string why =
      cat({"ROCm build of ", c.pkg.name, " ", c.rel.version, " with kernels for ",
           targets.empty() ? std::string("(architecture unknown, not checked)") : targets,
           unknown_gfx ? cat({"; a GPU's architecture is unknown: of these, the build with the "
                              "most gfx targets (",
                              join(chosen->gfx, " "), "), not the newest"})
                       : std::string()});
  if (!host_rocm)
    why +=
        "; no ROCm found on the host (the wheel brings its own ROCm user space; the amdgpu "
        "kernel driver is what the host needs)";
  else if (!not_newer(*chosen))
    why += cat({"; newer than the host's ROCm ", *host_rocm,
                " (no covering build is older; the wheel brings its own user space)"});
  else
    why += cat({", not newer than the host's ROCm ", *host_rocm});
  if (!host_driver_supports(*chosen)) {
    out.needs = cat({"an amdgpu kernel driver that supports ROCm ", chosen->rocm, " (the host's ",
                     *module, " supports ", join(kmd->rocm, ", "), ")"});
    why += cat({"; ", driver_note(*chosen), ": upgrade the amdgpu kernel driver first"});
  } else if (kmd) {
    why +=
        cat({"; the host's amdgpu kernel driver ", *module, " (ROCm ", kmd->kmd, ") supports it"});
  } else if (module) {
    why +=
        cat({"; amdgpu kernel driver ", *module, " is not in AMD's support matrix, not checked"});
  }
  out.reason = why;
}

void choose_xpu(const Ctx& c, WheelChoice& out) {
  if (c.rel.variant("xpu")) {
    finish(c, out, "xpu");
    out.reason = cat({"Intel GPU: the xpu build of ", c.pkg.name, " ", c.rel.version,
                      " (torch.xpu; needs the Intel GPU driver and Level Zero on the host)"});
  } else {
    std::string first;
    for (const auto& r : c.pkg.releases)
      if (first.empty() && r.variant("xpu")) first = r.version;
    cpu_fallback(c, out,
                 cat({c.pkg.name, " ", c.rel.version, " has no xpu build",
                      first.empty() ? std::string() : cat({" (xpu builds start at ", first, ")"}),
                      "; the CPU build runs on this Intel host"}));
  }
  for (const auto& v : c.rel.variants)
    if (v.name != out.variant && (v.kind == "xpu" || v.kind == "cpu"))
      out.alternatives.push_back({v.name, c.data.index_for(v.name), true, "also runs here"});
}

// PEP 440 order: 2.1.0.post17 is newer than 2.1.0.post8 (not so as strings).
bool newer_plugin(const std::string& a, const std::string& b) {
  auto va = pep440::Version::parse(a), vb = pep440::Version::parse(b);
  if (va && vb) return pep440::compare(*va, *vb) > 0;
  return a > b;
}

void choose_plugin(const Ctx& c, const VendorPlugin& p, WheelChoice& out, bool version_given) {
  out.variant = p.package;
  const std::string* cann = runtime_version(c.inv, p.vendor, "cann");
  const PluginPair* best = nullptr;
  auto same_release = [&](const PluginPair& pr) { return c.pkg.release(pr.torch) == &c.rel; };
  for (const auto& pr : p.pairs) {
    bool rel_ok = (!version_given || same_release(pr)) &&
                  (!c.request.range || c.request.range->contains(pr.torch));
    bool cann_ok = !cann || pr.cann.empty() || pr.cann == *cann;
    if (!rel_ok || !cann_ok) continue;
    if (!best || compare_versions(pr.torch, best->torch).value_or(0) > 0 ||
        (pr.torch == best->torch && newer_plugin(pr.plugin, best->plugin)))
      best = &pr;
  }
  if (p.pairs.empty()) {
    // The vendor's own builds (Hygon DTK, CoreX, MACA…) follow its SDK releases, not the
    // upstream torch table: name no upstream version the user did not ask for.
    if (!version_given) out.version.clear();
    out.accelerated = true;
    out.reason = cat({p.note.empty() ? cat({p.package, " comes from the vendor"}) : p.note,
                      p.source.empty() ? std::string() : cat({" (", p.source, ")"})});
    return;
  }
  if (!best) {
    out.reason = cat({p.package, " has no pairing with ", c.pkg.name, " ", c.rel.version,
                      cann ? cat({" for CANN ", *cann}) : std::string(), " in the table",
                      p.source.empty() ? std::string() : cat({"; see ", p.source})});
    for (const auto& pr : p.pairs)
      out.alternatives.push_back(
          {cat({p.package, "==", pr.plugin}), p.index_url, false,
           cat({"pairs with ", c.pkg.name, " ", pr.torch,
                pr.cann.empty() ? std::string() : cat({", CANN ", pr.cann})})});
    return;
  }
  out.version = best->torch;
  out.accelerated = true;
  out.index_url = p.index_url;
  auto pkgs = cat({c.pkg.name, "==", best->torch, " ", p.package, "==", best->plugin});
  out.pip = pip_line(pkgs, p.index_url);
  out.uv = uv_line(pkgs, p.index_url);
  out.reason =
      cat({p.vendor, " devices run ", c.pkg.name, " through the ", p.package, " plugin; ",
           p.package, " ", best->plugin, " pairs with ", c.pkg.name, " ", best->torch,
           best->cann.empty() ? std::string() : cat({" on CANN ", best->cann}),
           cann ? cat({" (host CANN ", *cann, ")"}) : std::string(" (host CANN unknown)")});
}

}  // namespace

bool cuda_arch_covered(const std::vector<std::string>& arches,
                       const std::optional<std::string>& ptx, const std::string& arch) {
  auto dev = parse_sm(arch);
  if (!dev) return false;
  // An arch-specific target (sm_90a, compute_90a) runs on exactly that compute capability;
  // a family-specific one (sm_100f) within its major, as a plain cubin does.
  auto exact = [&](const Arch& b) { return b.major == dev->major && b.minor == dev->minor; };
  for (const auto& a : arches) {
    auto b = parse_sm(a);
    if (b && b->variant == 'a' ? exact(*b) : b && b->major == dev->major && b->minor <= dev->minor)
      return true;
  }
  if (ptx) {
    auto p = parse_sm(*ptx);
    if (p && p->variant == 'a') return exact(*p);
    if (p && (p->major < dev->major || (p->major == dev->major && p->minor <= dev->minor)))
      return true;
  }
  return false;
}

std::string variant_of_build(const std::string& version, const std::optional<std::string>& cuda,
                             const std::optional<std::string>& hip,
                             const std::optional<std::string>& xpu) {
  auto plus = version.find('+');
  if (plus != std::string::npos) {
    auto local = to_lower(std::string_view(version).substr(plus + 1));
    if (!local.empty()) return local;
  }
  if (cuda) {
    std::string digits;
    for (char ch : *cuda)
      if (ch != '.') digits += ch;
    return "cu" + digits;
  }
  if (hip) {
    auto parts = split(*hip, '.');
    if (parts.size() >= 2) return cat({"rocm", parts[0], ".", parts[1]});
  }
  if (xpu) return "xpu";
  return "cpu";
}

std::optional<std::string> pin_in_range(const TorchRelease& release,
                                        const pep440::SpecifierSet& range) {
  // The table keeps a release's newest patch only; the patches before it exist on the index.
  if (range.contains(release.latest)) return release.latest;
  auto parts = split(release.latest, '.');
  auto patch = parts.size() == 3 ? parse_uint(parts[2]) : std::nullopt;
  for (uint64_t p = patch.value_or(0); patch && p-- > 0;) {
    auto version = cat({parts[0], ".", parts[1], ".", std::to_string(p)});
    if (range.contains(version)) return version;
  }
  return std::nullopt;
}

Result<WheelChoice> choose_wheel(const WheelData& data, const Inventory& inventory,
                                 const WheelRequest& request) {
  std::string pkg_name = to_lower(request.package);
  if (pkg_name == "pytorch") pkg_name = "torch";
  const auto* pkg = data.package(pkg_name);
  if (!pkg) {
    std::vector<std::string> known;
    for (const auto& p : data.packages) known.push_back(p.name);
    return bad_input(cat({request.package, ": not in the wheel table ", data.file,
                          " (known: ", join(known, ", "), ")"}));
  }
  if (pkg->releases.empty())
    return bad_input(cat({data.file, ": ", pkg->name, " lists no releases"}));
  const TorchRelease* rel = &pkg->releases.back();
  std::string pin = rel->latest;
  if (request.version) {
    auto v = request.version->substr(0, request.version->find('+'));
    rel = pkg->release(v);
    auto parts = split(v, '.');
    bool numeric =
        parts.size() >= 2 && parts.size() <= 3 &&
        std::all_of(parts.begin(), parts.end(), [](auto p) { return parse_uint(p).has_value(); });
    if (!rel || !numeric)
      return bad_input(cat({pkg->name, " ", *request.version,
                            ": unknown version; known: ", pkg->known_versions(),
                            " (a newer table: --data FILE or ANYGPU_WHEELS)"}));
    pin = parts.size() == 3 ? v : rel->latest;
  } else if (request.range) {
    rel = nullptr;
    for (const auto& r : pkg->releases)
      if (auto p = pin_in_range(r, *request.range)) rel = &r, pin = *p;
    if (!rel)
      return bad_input(cat({"no release of ", pkg->name, " in ", data.file, " matches ",
                            request.range->str(), " (known: ", pkg->known_versions(), ")"}));
  }
  WheelChoice out;
  out.package = pkg->name;
  out.version = pin;
  out.vendor = request.vendor ? *request.vendor : primary_vendor(inventory);
  Ctx c{data, inventory, *pkg, *rel, pin, inventory.of_vendor(out.vendor), request};
  if (request.vendor && out.vendor != "none" && c.devices.empty())
    return host_error(cat({"no ", out.vendor, " device on this host"}));

  // PyTorch's own CUDA, ROCm and XPU wheels are picked here; a vendor's own build or plugin
  // comes from the wheel table.
  const Vendor* vendor = Registry::builtin().vendor(out.vendor);
  auto build = vendor ? vendor->torch_build() : VendorTorchBuild{};
  if (build.pytorch_index && build.kind == "cuda") {
    choose_cuda(c, out);
  } else if (build.pytorch_index && build.kind == "rocm") {
    choose_rocm(c, out);
  } else if (build.pytorch_index && build.kind == "xpu") {
    choose_xpu(c, out);
  } else if (const auto* plugin = data.plugin(out.vendor)) {
    choose_plugin(c, *plugin, out, request.version.has_value());
  } else if (out.vendor == "none") {
    cpu_fallback(c, out, "no accelerator found: the CPU build");
  } else if (vendor) {
    vendor_build_unknown(c, *vendor, out);
  } else {
    cpu_fallback(c, out,
                 cat({"no build for ", out.vendor, " devices in the wheel table; the CPU build"}));
  }
  // Other vendors' devices on a mixed host: say what they would take.
  if (!request.vendor)
    for (const auto& d : inventory.devices)
      if (d.vendor != out.vendor &&
          std::none_of(out.alternatives.begin(), out.alternatives.end(), [&](const auto& a) {
            return a.note.find("--vendor " + d.vendor) != std::string::npos;
          }))
        out.alternatives.push_back(
            {"", "", false,
             cat({"this host also has ", d.vendor, " devices: anygpu wheel --vendor ", d.vendor})});
  bool cpu_listed = std::any_of(out.alternatives.begin(), out.alternatives.end(),
                                [](const WheelAlternative& a) { return a.variant == "cpu"; });
  if (out.variant != "cpu" && !cpu_listed && rel->variant("cpu"))
    out.alternatives.push_back(
        {"cpu", data.index_for("cpu"), true, "runs anywhere, without acceleration"});
  return out;
}

}  // namespace anygpu
