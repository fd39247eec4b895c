#include "imagefit/compat_fit.h"

#include <algorithm>

#include "registry/registry.h"
#include "registry/vendor_names.h"
#include "util/strings.h"
#include "util/version.h"

namespace anygpu {

namespace {

std::optional<int> major_of(std::string_view version) {
  int v = 0;
  size_t i = 0;
  for (; i < version.size() && i < 6 && version[i] >= '0' && version[i] <= '9'; ++i)
    v = v * 10 + (version[i] - '0');
  if (i == 0 || (i < version.size() && version[i] != '.')) return std::nullopt;
  return v;
}

std::string gpu_words(const Device& d) {
  return d.name.value_or(cat({vendor_display_name(d.vendor), " device ", hex(d.pci.device_id, 4)}));
}

std::string branches(const image::CompatNote& n) {
  std::vector<std::string> s;
  for (int b : n.drivers) s.push_back(std::to_string(b));
  return s.empty() ? std::string("none") : join(s, " ");
}

// What to do instead, shared by every refusal.
std::string fix(const image::CudaCompat& c, const std::string& cuda) {
  return cat({"upgrade the host driver to branch ",
              c.driver_version.substr(0, c.driver_version.find('.')),
              " or newer (it provides CUDA ", cuda,
              " itself), or use an image built for the CUDA the host driver provides"});
}

void judge_one(const Device& d, const ImageCompat& lib, const WheelData& data,
               std::vector<Finding>& out) {
  const auto& c = lib.compat;
  auto where = cat({lib.file, " (layer ", lib.layer, ")"});
  auto compat_major = major_of(c.driver_version);
  auto host =
      d.driver && d.driver->version ? std::optional<std::string>(*d.driver->version) : std::nullopt;
  auto host_major = host ? major_of(*host) : std::nullopt;
  if (!compat_major || !host_major) {
    out.push_back({"image.cuda-compat-unknown", Severity::warning,
                   "cannot tell whether the image's cuda-compat library is used on this GPU",
                   cat({where,
                        !compat_major ? " carries no driver version in its name"
                                      : "; the host's NVIDIA driver version is unknown",
                        ": the container runtime uses it only when the host driver's major "
                        "version is older."}),
                   compat_major ? "run `anygpu detect` with the NVIDIA library available" : ""});
    return;
  }
  // The runtime leaves a compat library of the host's branch or older out of the library path.
  if (*host_major >= *compat_major) return;
  // The note names the CUDA the compat driver provides; without one, the newest CUDA whose
  // driver floor the compat driver's version meets.
  auto cuda =
      c.note ? c.note->cuda_version : data.cuda_for_driver(c.driver_version).value_or("newer");
  auto host_cuda = data.cuda_for_driver(*host).value_or("unknown");
  auto used = cat({where, " is the libcuda of driver ", c.driver_version, " (CUDA ", cuda,
                   "); the host's driver ", *host, " (CUDA ", host_cuda,
                   ") is older, so the container runtime puts it in the library path. "});
  const auto* spec = Registry::builtin().device(d.vendor, d.pci.device_id);
  std::string_view segment = spec ? spec->segment : std::string_view();
  if (segment == "consumer" || segment == "workstation") {
    out.push_back(
        {"image.cuda-compat-unsupported", Severity::error,
         cat({"CUDA fails with error 804 on ", gpu_words(d),
              ": forward compatibility (cuda-compat) works on data-center GPUs only"}),
         cat({used, "The registry knows this GPU as a ", segment,
              " card; cuInit returns 804 'forward compatibility was attempted on non "
              "supported HW'",
              segment == "workstation" ? " (NVIDIA names select NGC Server Ready RTX SKUs as "
                                         "the only exception)"
                                       : "",
              "."}),
         fix(c, cuda)});
    return;
  }
  if (segment.empty()) {
    out.push_back(
        {"image.cuda-compat-unknown", Severity::warning,
         cat({"cannot tell whether forward compatibility (cuda-compat) works on ", gpu_words(d)}),
         cat({used,
              "It works on data-center GPUs only (error 804 elsewhere); the "
              "registry does not record this GPU's product line."}),
         fix(c, cuda)});
    return;
  }
  if (c.unread || !c.note) {
    out.push_back({"image.cuda-compat-unknown", Severity::warning,
                   "cannot tell whether the image's cuda-compat library admits the host driver",
                   cat({used, "Its .note.cuda.fwd_compatibility ",
                        c.unread ? cat({"could not be read: ", *c.unread})
                                 : std::string("is absent (older cuda-compat packages carry "
                                               "none)"),
                        ", so the driver branches it supports are unknown."}),
                   fix(c, cuda)});
    return;
  }
  const auto& listed = c.note->drivers;
  if (std::find(listed.begin(), listed.end(), *host_major) == listed.end()) {
    out.push_back(
        {"image.cuda-compat-branch", Severity::error,
         cat({"CUDA fails with error 804: the image's cuda-compat library does not "
              "support driver branch ",
              std::to_string(*host_major)}),
         cat({used, "Its .note.cuda.fwd_compatibility admits driver branches ", branches(*c.note),
              " only."}),
         cat({"move the host to one of branches ", branches(*c.note), ", or ", fix(c, cuda)})});
    return;
  }
  out.push_back({"image.cuda-compat", Severity::info,
                 cat({"the image runs CUDA ", cuda, " on driver ", *host,
                      " through forward compatibility (cuda-compat)"}),
                 cat({used, "Its note admits driver branches ", branches(*c.note),
                      ", and this is a data-center GPU."}),
                 ""});
}

}  // namespace

std::vector<ImageCompat> image_compat_libraries(const image::ImageContents& image) {
  std::vector<ImageCompat> out;
  for (const auto& [path, f] : image.files)
    if (f.compat)
      out.push_back(
          {"/" + path, f.layer < image.layers.size() ? image.layers[f.layer] : "", *f.compat});
  return out;
}

void judge_cuda_compat(const Device& d, const std::vector<ImageCompat>& libs, const WheelData& data,
                       std::vector<Finding>& out) {
  if (d.vendor != "nvidia") return;
  for (const auto& lib : libs) judge_one(d, lib, data, out);
}

}  // namespace anygpu

namespace anygpu {

std::optional<std::string> forward_compat_driver(const Device& d,
                                                 const std::vector<ImageCompat>& libs,
                                                 const WheelData& data) {
  if (d.vendor != "nvidia") return std::nullopt;
  std::optional<std::string> out;
  for (const auto& lib : libs) {
    std::vector<Finding> f;
    judge_one(d, lib, data, f);
    if (f.size() == 1 && f[0].code == "image.cuda-compat" &&
        (!out || compare_versions(lib.compat.driver_version, *out).value_or(0) > 0))
      out = lib.compat.driver_version;
  }
  return out;
}

}  // namespace anygpu
