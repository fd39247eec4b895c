// Slurm hostlist expressions ("gpu[01-04,07]", "a[1-2]-b[3-4]", "n1,n[3-5]") expanded in order,
// zero padding kept.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// A malformed expression is a bad_input error quoting it with the column of the fault.
Result<std::vector<std::string>> expand_hostlist(std::string_view expression);

}  // namespace anygpu
