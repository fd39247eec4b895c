// cuda-compat in an image judged per NVIDIA device: whether the container runtime will put the
// image's forward-compatibility libcuda.so in the library path (the host driver's major is
// older than the compat library's, as nvidia-container-toolkit's cuda-compat hook and
// libnvidia-container's compat mode decide), and if so whether it can work there: only on
// data-center GPUs (the registry's `segment`) and only on the driver branches the library's
// `.note.cuda.fwd_compatibility` admits. Elsewhere CUDA fails with error 804
// (cudaErrorCompatNotSupportedOnDevice).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "image/compat_note.h"
#include "image/image_read.h"
#include "model/finding.h"
#include "model/inventory.h"
#include "registry/wheel_data.h"

namespace anygpu {

struct ImageCompat {
  std::string file, layer;
  image::CudaCompat compat;
};

std::vector<ImageCompat> image_compat_libraries(const image::ImageContents& image);

// Findings for device `d` (NVIDIA only; none when no compat library would be used).
void judge_cuda_compat(const Device& d, const std::vector<ImageCompat>& libs, const WheelData& data,
                       std::vector<Finding>& out);

// The driver version the image's CUDA runs on, for device `d`, where a compat library of the
// image is used and works there (the judgement above says `image.cuda-compat`): the compat
// library's ("580.65.06"), the newest of several; nullopt otherwise (the host's driver).
std::optional<std::string> forward_compat_driver(const Device& d,
                                                 const std::vector<ImageCompat>& libs,
                                                 const WheelData& data);

}  // namespace anygpu
