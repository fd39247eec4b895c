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

struct DeviceFit {
  std::string pci_bus_id;
  std::string label;  // "GPU 0 (NVIDIA H100 80GB HBM3, sm_90)"
  FitVerdict verdict = FitVerdict::ok;
  std::vector<Finding> findings;
};

struct ImageFit {
  std::string id, ref;
  std::vector<ImageFramework> frameworks;
  std::vector<ImageCodeObject> code_objects;
  std::vector<DeviceFit> devices;
  bool failed() const;
};

ImageFit judge_image(const image::ImageContents& image, const Inventory& inventory,
                     const WheelData& data);

nlohmann::ordered_json render_image_fit_json(const ImageFit& fit);
std::string render_image_fit_text(const ImageFit& fit);

}  // namespace anygpu
