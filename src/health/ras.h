// AMD RAS counters in sysfs (drivers/gpu/drm/amd/amdgpu/amdgpu_ras.c):
//   ras/<block>_err_count: "ue: N\nce: N\n" (uncorrectable, correctable) per IP block;
//   ras/gpu_vram_bad_pages: one "0xPFN : 0xSIZE : FLAG" line per page, FLAG R (reserved,
//   i.e. retired), P (pending) or F (failed to reserve).
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace anygpu::health {

struct RasCount {
  uint64_t uncorrectable = 0;
  uint64_t correctable = 0;
};
Result<RasCount> parse_ras_count(std::string_view text);

struct BadPages {
  uint64_t retired = 0, pending = 0, failed = 0;
};
Result<BadPages> parse_bad_pages(std::string_view text);

}  // namespace anygpu::health
