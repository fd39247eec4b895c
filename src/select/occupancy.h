// What the occupancy criteria (free_memory_gb, utilization, holders) judge a unit by: its free
// memory, utilisation and holders from one metrics sample and one process scan. select/ only
// judges; the app layer reads them (app/occupancy.h), and only for a config that uses one of
// these criteria, so that a selection without them costs no sampling. A value that could not be
// read is absent with the reason: a criterion on it rejects the unit, it never passes it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "select/accelerator_config.h"

namespace anygpu {

struct UnitOccupancy {
  std::optional<uint64_t> free_memory_bytes;
  std::optional<double> utilization_ratio;  // 0..1
  std::optional<int> holders;               // processes holding it, ended ones left out
  // Why each absent value is absent ("no utilization from sysfs", "/proc: permission denied").
  std::string free_memory_unknown, utilization_unknown, holders_unknown;
};

// By unit key (select/units.h unit_key: a bus id, or "<bus id>/<index>" for a partition). A
// unit with no entry has every value unknown.
using Occupancy = std::map<std::string, UnitOccupancy>;

// free_memory_gb, utilization, holders.
bool is_occupancy_criterion(CriterionType type);

// A size in GiB as selection messages print it ("79.6").
std::string gib_text(double gib);
// Whether some rule of `config` has an occupancy criterion (then the app layer samples).
bool uses_occupancy(const AcceleratorConfig& config);

// Whether the unit meets occupancy criterion `c`; `why` gets the reason when it does not
// ("utilization 88% is more than 50%", "free memory unknown: …"). `occupancy` null: nothing
// was read for the unit.
bool occupancy_meets(const UnitOccupancy* occupancy, const Criterion& c,
                     std::string* why = nullptr);

}  // namespace anygpu
