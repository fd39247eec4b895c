#include "app/image_gate.h"

#include <algorithm>
#include <set>

#include "image/image_read.h"
#include "registry/wheel_data.h"
#include "util/strings.h"

namespace anygpu {

bool ImageGate::fails() const {
  return fit && fit->failed();
}

ImageGate judge_run_image(const std::string& image, const Inventory& inventory,
                          const Selection& selection) {
  ImageGate gate;
  gate.image = image;
  auto stored = image::read_stored_image(image);
  if (!stored) {
    gate.unchecked = cat({"cannot be read: ", stored.error().message});
    return gate;
  }
  if (!*stored) {
    gate.unchecked = cat({"not in ", image::stores_searched(), " (the engine pulls it at start)"});
    return gate;
  }
  // Judged for the selected units' devices: a partition is judged as its whole device is.
  std::set<std::string> chosen;
  for (const auto& d : selection.devices) chosen.insert(d.pci.address.str());
  Inventory used = inventory;
  std::erase_if(used.devices, [&](const Device& d) { return !chosen.count(d.pci.address.str()); });
  gate.fit = judge_image(**stored, used, wheel_data());
  return gate;
}

}  // namespace anygpu
