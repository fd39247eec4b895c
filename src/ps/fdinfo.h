// DRM client statistics in /proc/PID/fdinfo/FD (Documentation/gpu/drm-usage-stats.rst):
//   drm-driver, drm-pdev (PCI bus id), drm-client-id, drm-engine-<name>: N ns,
//   drm-cycles-<name> / drm-total-cycles-<name> (xe), drm-memory-<region> (legacy) and
//   drm-total-/drm-resident-<region>: N [KiB|MiB].
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace anygpu::ps {

struct DrmClient {
  std::optional<std::string> driver, pdev;
  std::optional<uint64_t> client_id;
  std::map<std::string, uint64_t> engine_ns;      // busy time per engine
  std::map<std::string, uint64_t> engine_cycles;  // xe: busy cycles per engine
  std::map<std::string, uint64_t> memory_bytes;   // per region, resident when published

  bool is_drm() const { return driver.has_value() || client_id.has_value(); }
  // Bytes in device-local regions (vram*, local*); absent when the driver publishes none.
  std::optional<uint64_t> device_memory() const;
};

// Unknown keys are ignored (the format grows); a malformed drm- value drops that key only.
DrmClient parse_fdinfo(std::string_view text);

}  // namespace anygpu::ps
