// `anygpu image check`: an image's framework builds and GPU code objects (src/image/) judged
// against each device of this host, with the judge `check`, `doctor` and `wheel` use for an
// installed torch (wheel/framework_check.h), plus what only an image shows: the cubins, PTX and
// gfx targets its libraries really carry, and the NVIDIA_REQUIRE_CUDA the container runtime
// enforces at start.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "image/image_read.h"
#include "imagefit/compat_fit.h"
#include "model/finding.h"
#include "model/inventory.h"
#include "registry/wheel_data.h"

namespace anygpu {

struct ImageFramework {
  std::string name;     // torch, torch_npu, or a conda package (pytorch, pytorch-gpu, cuda-version)
  std::string version;  // "2.7.0+cu126"; a conda record's version-build
  std::optional<std::string> cuda, hip;
  std::string file;   // where it was read, "/usr/lib/python3/site-packages/torch/version.py"
  std::string layer;  // "sha256:…"
};

struct ImageCodeObject {
  std::string file, layer;
  image::CodeObjects objects;
};

enum class FitVerdict { ok, warning, fail };

// One partition a run could be given (a MIG instance, an AMD compute partition), judged as a
// device of its own: the parent's compute capability or gfx target, its driver, its brand.
struct PartitionFit {
  std::string id;  // "MIG-<uuid>", "<bus id>/<index>"
  std::optional<std::string> profile;
  FitVerdict verdict = FitVerdict::ok;
  std::vector<Finding> findings;
};

struct DeviceFit {
  std::string pci_bus_id;
  std::string label;  // "GPU 0 (NVIDIA H100 80GB HBM3, sm_90)"
  // The worst of the device's own and its partitions' verdicts.
  FitVerdict verdict = FitVerdict::ok;
  std::vector<Finding> findings;
  std::vector<PartitionFit> partitions;  // empty unless the device is partitioned
};

struct ImageFit {
  std::string id, ref;
  std::vector<ImageFramework> frameworks;
  std::vector<ImageCodeObject> code_objects;
  std::vector<ImageCompat> compat;  // cuda-compat libraries and their notes
  std::vector<DeviceFit> devices;
  bool failed() const;
};

ImageFit judge_image(const image::ImageContents& image, const Inventory& inventory,
                     const WheelData& data);

nlohmann::ordered_json render_image_fit_json(const ImageFit& fit);
std::string render_image_fit_text(const ImageFit& fit);

}  // namespace anygpu
