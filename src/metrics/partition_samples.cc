#include "metrics/partition_samples.h"

#include <algorithm>

#include "util/strings.h"

namespace anygpu {

namespace {

std::string instance_name(unsigned gi, unsigned ci) {
  return cat({"GI ", std::to_string(gi), " CI ", std::to_string(ci)});
}

}  // namespace

void attach_partition_samples(DeviceSample& into, std::vector<PartitionSample>&& sampled,
                              const Device& device, std::string_view api) {
  bool mig = device.partitioning && device.partitioning->mode == "mig";
  std::vector<bool> used(sampled.size(), false);
  if (mig) {
    for (const auto& part : device.partitions) {
      if (!part.gpu_instance || !part.compute_instance) continue;
      PartitionSample row;
      row.index = part.index;
      row.id = part.id;
      row.profile = part.profile;
      row.gpu_instance = static_cast<unsigned>(*part.gpu_instance);
      row.compute_instance = static_cast<unsigned>(*part.compute_instance);
      auto it = std::find_if(sampled.begin(), sampled.end(), [&](const PartitionSample& s) {
        return s.gpu_instance == row.gpu_instance && s.compute_instance == row.compute_instance;
      });
      if (it == sampled.end()) {
        into.warnings.push_back(cat({api, " gave no sample of MIG instance ",
                                     instance_name(row.gpu_instance, row.compute_instance),
                                     " (partition ", std::to_string(row.index), ")"}));
      } else {
        used[static_cast<size_t>(it - sampled.begin())] = true;
        row.memory_used_bytes = it->memory_used_bytes;
        row.memory_total_bytes = it->memory_total_bytes;
      }
      into.partitions.push_back(std::move(row));
    }
  }
  for (size_t i = 0; i < sampled.size(); ++i)
    if (!used[i])
      into.warnings.push_back(
          cat({api, " lists MIG instance ",
               instance_name(sampled[i].gpu_instance, sampled[i].compute_instance),
               " that discovery did not find; left out"}));
}

}  // namespace anygpu
