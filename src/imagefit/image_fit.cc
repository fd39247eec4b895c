#include "imagefit/image_fit.h"

#include <algorithm>

#include "imagefit/image_frameworks.h"
#include "imagefit/require_cuda.h"
#include "model/arch.h"
#include "registry/vendor_names.h"
#include "util/strings.h"
#include "wheel/choose.h"
#include "wheel/framework_check.h"

namespace anygpu {

namespace {

std::string where(const ImageCodeObject& c) {
  return cat({c.file, " (layer ", c.layer, ")"});
}

std::string device_words(const Device& d) {
  return cat({d.name.value_or(vendor_display_name(d.vendor) + " device"),
              d.arch ? ", " + *d.arch : std::string()});
}

bool nvidia_code(const image::CodeObjects& o) {
  return !o.sass.empty() || !o.ptx.empty() || !o.specific.empty();
}
bool amd_code(const image::CodeObjects& o) {
  return !o.gfx.empty() || o.unread_bundles > 0;
}

// A target id ("gfx90a:xnack-") against the device's ("gfx90a", "gfx90a:sramecc+:xnack-"):
// yes when it loads, unknown when a feature it fixes is not known for the device.
Tristate gfx_target_fits(std::string_view target, std::string_view device) {
  auto t = split(target, ':');
  auto d = split(device, ':');
  if (t.empty() || d.empty() || t[0] != d[0]) return Tristate::no;
  Tristate out = Tristate::yes;
  for (size_t i = 1; i < t.size(); ++i) {
    auto f = t[i];
    if (f.size() < 2) continue;
    auto name = f.substr(0, f.size() - 1);
    bool found = false;
    for (size_t k = 1; k < d.size(); ++k)
      if (d[k].size() >= 2 && d[k].substr(0, d[k].size() - 1) == name) {
        found = true;
        if (d[k] != f) return Tristate::no;
      }
    if (!found) out = Tristate::unknown;
  }
  return out;
}

void judge_nvidia_code(const Device& d, const std::vector<ImageCodeObject>& libs,
                       std::vector<Finding>& out) {
  auto arch = d.arch ? Arch::parse(*d.arch) : std::nullopt;
  for (const auto& c : libs) {
    if (!nvidia_code(c.objects)) continue;
    auto names = c.objects.arch_names();
    auto list = join(names, " ");
    if (!arch || !arch->is_nvidia()) {
      out.push_back({"image.arch-unknown", Severity::warning,
                     cat({"cannot tell whether ", c.file, " has kernels for ", device_words(d)}),
                     cat({where(c), " carries ", list,
                          "; the device's compute capability is "
                          "unknown."}),
                     "run `anygpu detect` with the NVIDIA library available"});
      return;
    }
    std::vector<std::string> sass, ptx;
    for (int s : c.objects.sass) sass.push_back("sm_" + std::to_string(s));
    for (int p : c.objects.ptx) ptx.push_back("sm_" + std::to_string(p));
    for (const auto& s : c.objects.specific)
      (s.rfind("sm_", 0) == 0 ? sass : ptx).push_back("sm_" + s.substr(s.find('_') + 1));
    if (cuda_arch_covered(sass, std::nullopt, *d.arch)) continue;
    if (std::any_of(ptx.begin(), ptx.end(),
                    [&](const std::string& p) { return cuda_arch_covered({}, p, *d.arch); })) {
      out.push_back({"image.ptx-jit", Severity::info,
                     cat({c.file, " runs on ", *d.arch, " through PTX JIT compilation"}),
                     cat({"It carries ", list, " (layer ", c.layer, "): no cubin for ", *d.arch,
                          "; the driver compiles the PTX at first use (slow start, and only "
                          "when the driver is at least as new as the toolkit that wrote it)."}),
                     ""});
      continue;
    }
    out.push_back({"image.no-kernel-image", Severity::error,
                   cat({c.file, " has no kernels for ", *d.arch}),
                   cat({"It carries ", list, " (layer ", c.layer,
                        "); this GPU fails with 'no kernel image is available for execution "
                        "on the device'."}),
                   cat({"use an image whose build of this library includes ", *d.arch,
                        " (or PTX for an older compute capability)"})});
  }
}

void judge_amd_code(const Device& d, const std::vector<ImageCodeObject>& libs,
                    std::vector<Finding>& out) {
  for (const auto& c : libs) {
    if (!amd_code(c.objects)) continue;
    auto list = join(c.objects.arch_names(), " ");
    if (c.objects.gfx.empty() || !d.arch) {
      out.push_back({"image.arch-unknown", Severity::warning,
                     cat({"cannot tell whether ", c.file, " has kernels for ", device_words(d)}),
                     cat({where(c),
                          c.objects.gfx.empty()
                              ? cat({" carries ", std::to_string(c.objects.unread_bundles),
                                     " zstd-compressed offload bundle(s) whose targets anygpu "
                                     "does not read"})
                              : cat({" carries ", list, "; the device's gfx target is unknown"}),
                          ". Unknown is not ok."}),
                     ""});
      continue;
    }
    Tristate best = Tristate::no;
    for (const auto& t : c.objects.gfx) best = std::max(best, gfx_target_fits(t, *d.arch));
    if (best == Tristate::yes) continue;
    if (best == Tristate::unknown) {
      out.push_back({"image.gfx-feature", Severity::warning,
                     cat({c.file, "'s ", *d.arch, " code objects fix xnack/sramecc modes"}),
                     cat({where(c), " carries ", list,
                          "; they load only where the device runs "
                          "in that mode, which is not known here."}),
                     "check the device's mode (HSA_XNACK, rocminfo) against the target ids"});
      continue;
    }
    out.push_back({"image.no-gfx-target", Severity::error,
                   cat({c.file, " has no code objects for ", *d.arch}),
                   cat({"It targets ", list, " (layer ", c.layer,
                        "); this GPU fails with 'HIP error: invalid device function'."}),
                   cat({"use an image whose ROCm build targets ", *d.arch})});
  }
}

// The torch judge of an installed environment, applied to each environment in the image.
void judge_torch(const Device& d, const Inventory& inv, const WheelData& data,
                 const std::vector<ImagePythonEnv>& envs, bool own_code_read,
                 std::vector<Finding>& out) {
  for (const auto& e : envs) {
    auto j = judge_torch_build(e.env, inv, data, d.vendor, {&d});
    for (auto& f : j.findings) {
      // The table's arch list is what builds usually carry; the image's own cubins, read
      // above, are what the loader sees.
      if (f.code == "torch.arch-unsupported" && own_code_read) continue;
      f.evidence = cat({f.evidence, " (", e.file, ", layer ", e.layer, ")"});
      if (!f.action.empty()) f.action = "in the image: " + f.action;
      out.push_back(std::move(f));
    }
  }
}

void judge_requirements(const Device& d, const image::ImageContents& image, const WheelData& data,
                        std::vector<Finding>& out) {
  RequireFacts facts;
  if (d.driver && d.driver->version) {
    facts.driver = d.driver->version;
    facts.cuda = data.cuda_for_driver(*d.driver->version);
  }
  if (auto a = d.arch ? Arch::parse(*d.arch) : std::nullopt; a && a->is_nvidia())
    facts.arch = cat({std::to_string(a->major), ".", std::to_string(a->minor)});
  auto v = judge_cuda_requirements(image.env, facts);
  if (v.met == Tristate::yes) return;
  auto host = cat({"driver ", facts.driver.value_or("unknown"), " (CUDA ",
                   facts.cuda.value_or("unknown"), ")"});
  if (v.met == Tristate::no) {
    out.push_back(
        {"image.require-cuda", Severity::error,
         cat({"the container runtime refuses the image: unsatisfied condition: ", v.failed}),
         cat({"config.Env requires '", v.expression, "'; the host has ", host,
              ". nvidia-container-cli stops the start with 'requirement error'."}),
         "upgrade the NVIDIA driver, or use an image built for the host's CUDA"});
    return;
  }
  out.push_back({"image.require-cuda-unknown", Severity::warning,
                 "cannot tell whether the container runtime accepts the image",
                 cat({"config.Env requires '", v.expression, "'; with ", host,
                      " it depends on what is not known here (the GPU's brand)."}),
                 ""});
}

// Code of another vendor only: the image's GPU code cannot run on this device.
void judge_vendor(const Device& d, const std::vector<ImageCodeObject>& libs,
                  std::vector<Finding>& out) {
  bool nv = false, amd = false;
  for (const auto& c : libs) nv |= nvidia_code(c.objects), amd |= amd_code(c.objects);
  bool mine = d.vendor == "nvidia" ? nv : d.vendor == "amd" ? amd : false;
  if (mine || (!nv && !amd) || (d.vendor != "nvidia" && d.vendor != "amd")) return;
  for (const auto& f : out)
    if (f.code == "torch.vendor-mismatch") return;  // the torch judge said it already
  out.push_back({"image.vendor-mismatch", Severity::error,
                 cat({"the image's GPU code is for ", nv ? "NVIDIA (CUDA)" : "AMD (ROCm)",
                      " devices, not ", vendor_display_name(d.vendor)}),
                 cat({"Its libraries carry ", nv ? "cubins/PTX" : "gfx code objects",
                      " only; none loads on this device."}),
                 cat({"use the image's ", d.vendor == "nvidia" ? "CUDA" : "ROCm", " variant"})});
}

// The CANN toolkit the image carries: its ascend_toolkit_install.info, the one under latest/
// when several are kept.
const ImageFramework* image_cann(const std::vector<ImageFramework>& frameworks) {
  const ImageFramework* out = nullptr;
  for (const auto& f : frameworks)
    if (f.name == "cann" && (!out || (out->file.find("/latest/") == std::string::npos &&
                                      f.file.find("/latest/") != std::string::npos)))
      out = &f;
  return out;
}

// The host as the image's torch sees it: a CANN toolkit inside the image is the one torch_npu
// loads (the container is given the host's driver, not its toolkit).
Inventory as_seen_from_image(const Inventory& inventory, const std::vector<ImageFramework>& fw) {
  Inventory out = inventory;
  const auto* cann = image_cann(fw);
  if (!cann) return out;
  RuntimeComponent own{"ascend", "cann", cann->version,
                       cat({"the image's ", cann->file, ", layer ", cann->layer})};
  bool replaced = false;
  for (auto& r : out.runtimes)
    if (r.vendor == "ascend" && r.component == "cann") r = own, replaced = true;
  if (!replaced) out.runtimes.push_back(own);
  return out;
}

// The image's own CANN toolkit against the host's Ascend driver (HDK), by the CANN release
// notes the wheel table carries; a CANN whose notes were not read is said to be unjudged.
void judge_cann_driver(const Device& d, const std::vector<ImageFramework>& fw,
                       const WheelData& data, std::vector<Finding>& out) {
  const auto* cann = image_cann(fw);
  if (!cann) return;
  const auto* plugin = data.plugin("ascend");
  const auto* row = plugin ? plugin->drivers_for_cann(cann->version) : nullptr;
  auto where = cat({cann->file, " (layer ", cann->layer, ")"});
  if (!row) {
    out.push_back({"image.cann-driver-unjudged", Severity::warning,
                   cat({"not judged: whether the image's CANN ", cann->version,
                        " runs on this Ascend driver"}),
                   cat({where, " is CANN ", cann->version,
                        "; the Ascend HDK releases it supports are not known here (the table "
                        "holds them only for CANN releases whose release notes were read)."}),
                   "check CANN's release notes for the HDK it needs"});
    return;
  }
  auto driver = d.driver ? d.driver->version : std::nullopt;
  auto parts = driver ? split(*driver, '.') : std::vector<std::string_view>{};
  std::string branch = parts.size() >= 2 ? cat({parts[0], ".", parts[1]}) : std::string();
  auto listed = join(row->drivers, ".X/") + ".X";
  if (branch.empty()) {
    out.push_back({"image.cann-driver-unknown", Severity::warning,
                   cat({"cannot tell whether the image's CANN ", cann->version,
                        " runs on this device's driver"}),
                   cat({where, " is CANN ", cann->version, ", which supports Ascend HDK ", listed,
                        " (", row->source, "); the driver's version is unknown."}),
                   ""});
    return;
  }
  if (std::find(row->drivers.begin(), row->drivers.end(), branch) != row->drivers.end()) return;
  out.push_back(
      {"image.cann-driver", Severity::error,
       cat({"the image's CANN ", cann->version, " does not support Ascend driver ", *driver}),
       cat({where, " is CANN ", cann->version, "; its release notes list Ascend HDK ", listed, " (",
            row->source, "); the host's driver is ", *driver, "."}),
       cat({"upgrade the Ascend driver (HDK) to ", listed,
            ", or use an image whose CANN supports HDK ", branch})});
}

FitVerdict verdict_of(const std::vector<Finding>& findings) {
  FitVerdict v = FitVerdict::ok;
  for (const auto& f : findings) {
    if (f.severity == Severity::error) return FitVerdict::fail;
    if (f.severity == Severity::warning) v = FitVerdict::warning;
  }
  return v;
}

bool torch_code_read(const std::vector<ImagePythonEnv>& envs,
                     const std::vector<ImageCodeObject>& libs, const std::string& vendor) {
  for (const auto& e : envs)
    for (const auto& c : libs)
      if (c.file.rfind(e.env.torch->dir + "/", 0) == 0 &&
          (vendor == "nvidia" ? nvidia_code(c.objects) : amd_code(c.objects)))
        return true;
  return false;
}

}  // namespace

bool ImageFit::failed() const {
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceFit& d) { return d.verdict == FitVerdict::fail; });
}

namespace {

std::vector<Finding> judge_device(const Device& d, const image::ImageContents& image,
                                  const Inventory& inventory, const WheelData& data,
                                  const ImageFit& fit, const std::vector<ImagePythonEnv>& envs) {
  std::vector<Finding> f;
  if (d.vendor == "nvidia") judge_requirements(d, image, data, f);
  // Where the image's cuda-compat library works on this GPU, its CUDA runs on the compat
  // driver: the torch judge sees that driver, not the host's (no driver floor refusal).
  Device seen = d;
  if (auto compat = forward_compat_driver(d, fit.compat, data); compat && seen.driver)
    seen.driver->version = *compat;
  judge_torch(seen, as_seen_from_image(inventory, fit.frameworks), data, envs,
              torch_code_read(envs, fit.code_objects, d.vendor), f);
  if (d.vendor == "ascend") judge_cann_driver(d, fit.frameworks, data, f);
  if (d.vendor == "nvidia") judge_nvidia_code(d, fit.code_objects, f);
  if (d.vendor == "amd") judge_amd_code(d, fit.code_objects, f);
  judge_cuda_compat(d, fit.compat, data, f);
  judge_vendor(d, fit.code_objects, f);
  if (envs.empty() && fit.code_objects.empty() && fit.frameworks.empty())
    f.push_back({"image.no-gpu-code", Severity::warning,
                 "the image carries no framework build or GPU code anygpu reads",
                 "No torch/version.py, torch_npu, conda framework record or library with "
                 "GPU code objects was found in its final filesystem.",
                 ""});
  return f;
}

}  // namespace

ImageFit judge_image(const image::ImageContents& image, const Inventory& inventory,
                     const WheelData& data) {
  ImageFit fit;
  fit.id = image.id;
  fit.ref = image.ref;
  fit.frameworks = image_frameworks(image);
  fit.code_objects = image_code_objects(image);
  fit.compat = image_compat_libraries(image);
  auto envs = image_python_envs(image);
  for (const auto& d : inventory.devices) {
    DeviceFit df;
    df.pci_bus_id = d.pci.address.str();
    df.label = cat({d.vendor, " ", std::to_string(d.index), " (", device_words(d), ")"});
    df.findings = judge_device(d, image, inventory, data, fit, envs);
    df.verdict = verdict_of(df.findings);
    // A partitioned device is handed out by partition: each is judged as the device a run
    // would get (partition_device: the parent's arch, driver and model).
    for (const auto& p : d.partitions) {
      PartitionFit pf;
      pf.id = p.id;
      pf.profile = p.profile;
      pf.findings = judge_device(partition_device(d, p), image, inventory, data, fit, envs);
      pf.verdict = verdict_of(pf.findings);
      df.verdict = std::max(df.verdict, pf.verdict);
      df.partitions.push_back(std::move(pf));
    }
    fit.devices.push_back(std::move(df));
  }
  return fit;
}

}  // namespace anygpu
