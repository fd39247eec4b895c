// A CLI11 check for a duration in seconds (--watch, --interval): a finite number in lo..hi.
// CLI::Range lets "nan" through (every comparison with NaN is false); this does not.
#pragma once

#include <CLI/CLI.hpp>

namespace anygpu::cli {

CLI::Validator seconds_in(double lo, double hi);

}  // namespace anygpu::cli
