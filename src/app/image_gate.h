// `run --container IMAGE` judges the image it will start, not the host's Python: the image as
// the local containers-storage keeps it is read (never run) and judged by `image check`'s judge
// for the devices the run was given. An image not stored here yet (the engine would pull it) or
// one that cannot be read is said to be unchecked, not passed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "imagefit/image_fit.h"
#include "select/select.h"

namespace anygpu {

struct ImageGate {
  std::string image;
  std::optional<ImageFit> fit;        // absent: not checked …
  std::string unchecked;              // … and why
  std::optional<Error> refused;       // the environment names no usable cache (ANYGPU_CACHE_DIR)
  std::vector<std::string> warnings;  // the facts cache's (an entry set aside)
  std::vector<std::string> notes;     // how the image was read (cached or layer by layer)
  // The selected devices' verdicts only (a device the run does not use does not stop it).
  bool fails() const;
};

ImageGate judge_run_image(const std::string& image, const Inventory& inventory,
                          const Selection& selection);

}  // namespace anygpu
