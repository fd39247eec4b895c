// `anygpu run --dry-run --json`: the plan as {"schema":"anygpu.plan/v1",…}.
#pragma once

#include <nlohmann/json.hpp>

#include "launch/plan.h"

namespace anygpu {

inline constexpr const char* kPlanSchema = "anygpu.plan/v1";

// {"schema","mode","argv":[…],"env":{…},"unset":[…],"devices":[{vendor,index,bus_id,nodes}],
//  "engine":"podman"|"docker"|null}. `env` holds only what anygpu sets over the caller's
// environment.
nlohmann::ordered_json plan_to_json(const LaunchPlan& plan);

}  // namespace anygpu
