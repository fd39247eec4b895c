// The one recommendation `wheel`, `check` and `doctor` give: the build to install now, and,
// apart from it, a better one that waits for a driver upgrade. The first line is always one the
// host runs as it is; advice that needs an upgrade first is never the headline.
#pragma once

#include <optional>
#include <string>

#include "model/inventory.h"
#include "registry/wheel_data.h"
#include "util/result.h"
#include "wheel/choose.h"

namespace anygpu {

struct Recommendation {
  WheelChoice now;                           // installable, and runs on this host as it is
  std::optional<WheelChoice> after_upgrade;  // newer and accelerated; its `needs` says the upgrade
  // A pinned release with no build that drives the devices now: why (the command fails on it).
  std::optional<std::string> pin_cannot_run;
};

// `request` as for choose_wheel(). Without a pin, the newest release (inside request.range)
// whose build drives the devices now; `keep_release` ("2.5.1+cu121", the installed torch) is
// preferred when the table knows it and it has such a build, so a fix changes as little as it
// can. Errors as choose_wheel().
Result<Recommendation> recommend_build(const WheelData& data, const Inventory& inventory,
                                       const WheelRequest& request,
                                       std::string_view keep_release = {});

// The build `check` and doctor name in place of the installed torch `installed`
// ("2.5.1+cu121"): recommend_build() keeping that release where it can, for `vendor`'s devices,
// inside `range` (a contract's torch range) when given. Nothing when the choice fails or no
// public index serves it.
std::optional<WheelChoice> recommend_replacement(const WheelData& data, const Inventory& inventory,
                                                 std::string_view installed,
                                                 const std::string& vendor,
                                                 const std::optional<pep440::SpecifierSet>& range);

}  // namespace anygpu
