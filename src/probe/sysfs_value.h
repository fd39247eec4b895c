// Parsers for the one-number files the kernel publishes for metrics (sysfs attributes and
// hwmon channels). A value that is not a plain decimal integer in its documented range is
// rejected with a reason, so a garbage, negative, truncated or absurdly large file becomes an
// absent metric instead of a wrong one.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace anygpu::metrics {

// One decimal integer ("42", "-5000", "42\n"); surrounding ASCII whitespace is allowed,
// anything else (signs twice, hex, fractions, trailing text, an empty file) is not.
Result<int64_t> parse_sysfs_integer(std::string_view text, int64_t min, int64_t max);

// The documented ranges, generous enough for any real part and tight enough to catch
// nonsense (an unsigned -1 read back as 18446744073709551615, a sensor's error code).
inline constexpr int64_t kMaxPercent = 100;
inline constexpr int64_t kMinMilliCelsius = -273150;      // absolute zero
inline constexpr int64_t kMaxMilliCelsius = 1000 * 1000;  // 1000 °C: no sensor reads this
inline constexpr int64_t kMaxMicroWatts = int64_t{100} * 1000 * 1000 * 1000;  // 100 kW
inline constexpr int64_t kMaxBytes = int64_t{1} << 56;                        // 64 PiB
inline constexpr int64_t kMaxHertz = int64_t{100} * 1000 * 1000 * 1000;       // 100 GHz
inline constexpr int64_t kMaxMegaHertz = 100 * 1000;
inline constexpr int64_t kMaxMicroJoules = INT64_MAX;  // a counter: wraps are handled above

}  // namespace anygpu::metrics
