#include "app/image_gate.h"

#include <algorithm>
#include <set>

#include "image/facts_cache.h"
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
  std::string why;
  auto opened = image::FactsCache::open(&why);
  if (!opened) {
    gate.refused = opened.error();
    return gate;
  }
  auto& cache = *opened;
  if (!cache) gate.notes.push_back(cat({"image cache: ", why}));
  auto stored = image::read_stored_image(image, cache ? &*cache : nullptr);
  if (!stored) {
    gate.unchecked = cat({"cannot be read: ", stored.error().message});
    return gate;
  }
  if (!*stored) {
    gate.unchecked = cat({"not in ", image::stores_searched(), " (the engine pulls it at start)"});
    return gate;
  }
  gate.warnings = (*stored)->warnings;
  gate.notes.push_back(image::read_note(**stored, cache ? &*cache : nullptr));
  // Judged for the selected units' devices, and of a partitioned device for the partitions
  // the run was given only (the judge takes each as the device the run gets).
  std::set<std::string> chosen, chosen_partitions;
  for (size_t i = 0; i < selection.devices.size(); ++i) {
    chosen.insert(selection.devices[i].pci.address.str());
    if (const auto* p = selection.partition_of(i)) chosen_partitions.insert(p->id);
  }
  Inventory used = inventory;
  std::erase_if(used.devices, [&](const Device& d) { return !chosen.count(d.pci.address.str()); });
  for (auto& d : used.devices)
    if (std::any_of(d.partitions.begin(), d.partitions.end(),
                    [&](const Partition& p) { return chosen_partitions.count(p.id) > 0; }))
      std::erase_if(d.partitions,
                    [&](const Partition& p) { return !chosen_partitions.count(p.id); });
  gate.fit = judge_image(**stored, used, wheel_data());
  return gate;
}

}  // namespace anygpu
