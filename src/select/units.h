// The units of selection (SPEC "Partitions"): a whole device, or, on a partitioned device, each
// of its partitions. A partitioned device is never a unit itself: its runtime enumerates the
// partitions, and handing the whole device out would give one process every partition.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/inventory.h"
#include "select/accelerator_config.h"
#include "util/result.h"

namespace anygpu {

struct Unit {
  const Device* device = nullptr;
  const Partition* partition = nullptr;  // null: the whole device
};

// Every unit of `inventory`, in device order, a device's partitions in their index order.
std::vector<Unit> selection_units(const Inventory& inventory);

// "nvidia 0 (0000:18:00.0)"; a partition "nvidia 0:1 (0000:18:00.0/1)".
std::string unit_label(const Unit& u);
// The lock key (host/unit_lock.h): "0000:18:00.0", "0000:18:00.0/1".
std::string unit_key(const Unit& u);
// The id users pass back: the bus id, or the partition's id (SPEC "Partitions").
std::string unit_id(const Unit& u);

// The unit as a device of its own: what the criteria judge and what a selection hands on
// (partition_device() for a partition: its own nodes, memory and NUMA node; vendor,
// architecture and driver are the parent's).
Device unit_facts(const Unit& u);

// Whether `ref` names this unit. A plain index or bus id names only a whole device.
bool unit_named_by(const Unit& u, const DeviceRef& ref);
// Whether `ref` names partitioned device `d` as a whole (refused: its partitions are the units).
bool names_partitioned_device(const Device& d, const DeviceRef& ref);

// The entry naming the unit in its vendor's visible-devices variable, as that runtime documents
// it, or why there is none (an error to show, not to exit on: the unit is then ineligible).
// `amd_partitioned_host`: AMD devices on this host are partitioned, so HIP numbers partitions.
// `partition_uuid_since`: the vendor's registry entry (Vendor::partition_uuid_since).
Result<std::string> visible_entry(const Unit& u, bool amd_partitioned_host,
                                  std::string_view partition_uuid_since);

// Level Zero on a host with a tiled Intel card: in FLAT mode (its driver's default, facts F-40)
// every tile is a root device, numbered after the cards before it (PCI order, as
// ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 makes it), and ZE_AFFINITY_MASK takes those flat numbers
// (F-39). Unit key -> its flat number for every Intel unit the runtime sees; empty on a host
// without a tiled card (there each card is one device, as before).
std::map<std::string, std::string> level_zero_flat_entries(const std::vector<Unit>& units);
// Set beside ZE_AFFINITY_MASK whenever the flat numbers are used: the specification's default
// is COMPOSITE, the driver's FLAT (F-40), so the hierarchy is never left to either.
inline constexpr std::string_view kZeHierarchyEnv = "ZE_FLAT_DEVICE_HIERARCHY";
inline constexpr std::string_view kZeHierarchyFlat = "FLAT";

}  // namespace anygpu
