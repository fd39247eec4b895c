#include "ps/fdinfo.h"

#include "util/strings.h"

namespace anygpu::ps {

namespace {

// "1234 KiB" → bytes; the units drm-usage-stats allows (none, KiB, MiB).
std::optional<uint64_t> parse_size(std::string_view v) {
  auto parts = split(trim(v), ' ');
  if (parts.empty() || parts.size() > 2) return std::nullopt;
  auto n = parse_uint(parts[0]);
  if (!n) return std::nullopt;
  uint64_t scale = 1;
  if (parts.size() == 2) {
    if (parts[1] == "KiB") {
      scale = 1024;
    } else if (parts[1] == "MiB") {
      scale = 1024 * 1024;
    } else {
      return std::nullopt;
    }
  }
  if (*n > UINT64_MAX / scale) return std::nullopt;
  return *n * scale;
}

std::optional<uint64_t> parse_ns(std::string_view v) {
  auto parts = split(trim(v), ' ');
  if (parts.size() != 2 || parts[1] != "ns") return std::nullopt;
  return parse_uint(parts[0]);
}

}  // namespace

std::optional<uint64_t> DrmClient::device_memory() const {
  std::optional<uint64_t> sum;
  for (const auto& [region, bytes] : memory_bytes)
    if (region.starts_with("vram") || region.starts_with("local")) sum = sum.value_or(0) + bytes;
  return sum;
}

DrmClient parse_fdinfo(std::string_view text) {
  DrmClient c;
  std::map<std::string, uint64_t> legacy, total, resident;
  for (std::string_view line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto key = trim(line.substr(0, colon));
    auto value = trim(line.substr(colon + 1));
    if (!key.starts_with("drm-")) continue;
    auto name = [&](std::string_view prefix) { return std::string(key.substr(prefix.size())); };
    if (key == "drm-driver") {
      if (!value.empty()) c.driver = std::string(value);
    } else if (key == "drm-pdev") {
      if (!value.empty()) c.pdev = to_lower(value);
    } else if (key == "drm-client-id") {
      c.client_id = parse_uint(value);
    } else if (key.starts_with("drm-engine-capacity-")) {
      // engine count, not a busy time
    } else if (key.starts_with("drm-engine-")) {
      if (auto ns = parse_ns(value)) c.engine_ns[name("drm-engine-")] = *ns;
    } else if (key.starts_with("drm-total-cycles-")) {
      // the GPU's clock over the same window: a denominator, not activity
    } else if (key.starts_with("drm-cycles-")) {
      if (auto n = parse_uint(value)) c.engine_cycles[name("drm-cycles-")] = *n;
    } else if (key.starts_with("drm-memory-")) {
      if (auto b = parse_size(value)) legacy[name("drm-memory-")] = *b;
    } else if (key.starts_with("drm-resident-")) {
      if (auto b = parse_size(value)) resident[name("drm-resident-")] = *b;
    } else if (key.starts_with("drm-total-")) {
      if (auto b = parse_size(value)) total[name("drm-total-")] = *b;
    }
  }
  // Resident memory is what the client holds on the device; older drivers publish only the
  // legacy drm-memory-<region>.
  c.memory_bytes = !resident.empty() ? resident : !legacy.empty() ? legacy : total;
  return c;
}

}  // namespace anygpu::ps
