// Driver, kernel and toolkit versions: one comparison, used by check, select, wheel and the
// runtime table alike, so "driver_version_min: 535.54.03" means the same everywhere.
#pragma once

#include <optional>
#include <string_view>

namespace anygpu {

// A dotted version: starts with a digit; segments of letters and digits ("24.1.rc2",
// "535.54.03", "6.8.0-45" is not one: '-' is no segment character).
bool is_dotted_version(std::string_view s);

// Segment by segment: numeric segments compare as numbers ("535.54.03" == "535.54.3"), a
// missing segment is 0 ("12" == "12.0"), and a segment that starts with letters ("rc2") sorts
// before any number at that position ("24.1.rc2" < "24.1.0"), letters then their number
// ordering such segments among themselves. Absent when either side is not a dotted version.
std::optional<int> compare_versions(std::string_view a, std::string_view b);

}  // namespace anygpu
