#include "select/units.h"

#include <algorithm>

#include "model/partition_key.h"
#include "util/strings.h"
#include "util/version.h"

namespace anygpu {

namespace {

// Before the vendor's partition_uuid_since (NVIDIA: 470.42.01, data/vendors.yaml) a MIG
// instance was named MIG-GPU-<gpu uuid>/<gi>/<ci> (F-9).
bool legacy_mig_driver(const Device& d, std::string_view uuid_since) {
  if (uuid_since.empty() || !d.driver || !d.driver->version) return false;
  auto cmp = compare_versions(*d.driver->version, uuid_since);
  return cmp && *cmp < 0;
}

std::optional<std::string> legacy_mig_name(const Device& d, const Partition& p) {
  if (!d.uuid || !d.uuid->starts_with("GPU-") || !p.gpu_instance || !p.compute_instance)
    return std::nullopt;
  return cat({"MIG-", *d.uuid, "/", std::to_string(*p.gpu_instance), "/",
              std::to_string(*p.compute_instance)});
}

Result<std::string> mig_entry(const Device& d, const Partition& p, std::string_view uuid_since) {
  if (p.uuid && p.uuid->starts_with("MIG-")) return *p.uuid;
  if (p.id.starts_with("MIG-")) return p.id;
  if (legacy_mig_driver(d, uuid_since)) {
    if (auto name = legacy_mig_name(d, p)) return *name;
    return host_error(cat({"driver ", *d.driver->version, " (before ", uuid_since,
                           ") names a MIG instance MIG-GPU-<gpu uuid>/<gi>/<ci>, and the GPU's "
                           "UUID is unknown"}));
  }
  return host_error(
      "no MIG UUID: CUDA takes a MIG instance only as MIG-<uuid>, which NVML gives, and NVML did "
      "not (see `anygpu detect -v`)");
}

}  // namespace

std::vector<Unit> selection_units(const Inventory& inventory) {
  std::vector<Unit> out;
  for (const auto& d : inventory.devices) {
    if (!d.partitioning || d.partitions.empty()) {
      out.push_back({&d, nullptr});
      continue;
    }
    for (const auto& p : d.partitions) out.push_back({&d, &p});
  }
  return out;
}

std::string unit_label(const Unit& u) {
  const Device& d = *u.device;
  if (!u.partition) return cat({d.vendor, " ", std::to_string(d.index), " (", unit_key(u), ")"});
  return cat({d.vendor, " ", std::to_string(d.index), ":", std::to_string(u.partition->index), " (",
              unit_key(u), ")"});
}

std::string unit_key(const Unit& u) {
  return u.partition ? partition_key(*u.device, *u.partition) : u.device->pci.address.str();
}

std::string unit_id(const Unit& u) {
  return u.partition ? u.partition->id : u.device->pci.address.str();
}

Device unit_facts(const Unit& u) {
  return u.partition ? partition_device(*u.device, *u.partition) : *u.device;
}

bool unit_named_by(const Unit& u, const DeviceRef& ref) {
  const Device& d = *u.device;
  if (ref.uuid) {
    if (!u.partition) return false;
    const Partition& p = *u.partition;
    auto legacy = legacy_mig_name(d, p);
    return (p.uuid && *p.uuid == *ref.uuid) || p.id == *ref.uuid ||
           (legacy && *legacy == *ref.uuid);
  }
  bool device =
      (ref.bus_id && d.pci.address.str() == *ref.bus_id) || (ref.index && d.index == *ref.index);
  if (!device) return false;
  if (!ref.partition) return !u.partition;
  return u.partition && u.partition->index == *ref.partition;
}

bool names_partitioned_device(const Device& d, const DeviceRef& ref) {
  if (!d.partitioning || d.partitions.empty() || ref.uuid || ref.partition) return false;
  return (ref.bus_id && d.pci.address.str() == *ref.bus_id) || (ref.index && d.index == *ref.index);
}

Result<std::string> visible_entry(const Unit& u, bool amd_partitioned_host,
                                  std::string_view partition_uuid_since) {
  const Device& d = *u.device;
  if (!u.partition) {
    if (d.vendor == "amd" && amd_partitioned_host)
      return host_error(
          "a whole device on a host whose other AMD devices are partitioned: HIP numbers the "
          "partitions, and this device's place among them is unknown");
    return std::to_string(d.index);
  }
  const Partition& p = *u.partition;
  if (d.partitioning->mode == "mig") return mig_entry(d, p, partition_uuid_since);
  // HIP and ROCr number each partition as a GPU of its own, in the kernel's (KFD's) order:
  // ROCm "GPU partitioning" docs, "How logical GPUs are numbered" (F-33).
  if (d.vendor == "amd" && p.runtime_index) return std::to_string(*p.runtime_index);
  // A vNPU is handed to a container by Ascend's runtime (ASCEND_VISIBLE_DEVICES=<vnpu id>, its
  // node mounted as /dev/davinci<id>, F-45, F-46); what id the host's own runtime gives it is
  // not documented.
  if (d.partitioning->mode == "vnpu")
    return host_error(
        "a vNPU: Ascend's container runtime takes it by its id (ASCEND_VISIBLE_DEVICES=<vnpu "
        "id>, `anygpu cdi generate`), and how the host's runtime numbers it is unknown");
  return host_error(
      cat({"a ", d.partitioning->mode, " partition: how its runtime numbers it is unknown"}));
}

std::map<std::string, std::string> level_zero_flat_entries(const std::vector<Unit>& units) {
  // Tiles are Intel's alone (probe/vendors/intel.cc): their vendor's runtime is Level Zero.
  std::string_view vendor;
  for (const auto& u : units)
    if (u.partition && u.device->partitioning->mode == "tiles") vendor = u.device->vendor;
  std::map<std::string, std::string> out;
  if (vendor.empty()) return out;
  std::vector<const Unit*> seen;  // what the runtime enumerates: the units bound to its driver
  for (const auto& u : units)
    if (u.device->vendor == vendor && u.device->bound()) seen.push_back(&u);
  std::stable_sort(seen.begin(), seen.end(), [](const Unit* a, const Unit* b) {
    auto pa = a->partition ? a->partition->index : -1, pb = b->partition ? b->partition->index : -1;
    return std::pair(a->device->index, pa) < std::pair(b->device->index, pb);
  });
  for (size_t i = 0; i < seen.size(); ++i) out[unit_key(*seen[i])] = std::to_string(i);
  return out;
}

}  // namespace anygpu
