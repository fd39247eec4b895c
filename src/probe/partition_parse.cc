#include "probe/partition_parse.h"

#include <algorithm>
#include <array>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr std::array<std::string_view, 5> kComputeModes = {"SPX", "DPX", "TPX", "QPX", "CPX"};
constexpr std::array<std::string_view, 4> kMemoryModes = {"NPS1", "NPS2", "NPS4", "NPS8"};

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

template <size_t N>
Result<std::string> one_of(std::string_view text, const std::array<std::string_view, N>& known,
                           std::string_view what) {
  auto v = upper(trim(text));
  if (std::find(known.begin(), known.end(), v) != known.end()) return v;
  return bad_input(cat({"unknown ", what, " '", escape_control(trim(text)), "'"}));
}

// "gpu3/gi3/ci4/access" -> {3, 3, 4}; nullopt for any other name.
std::optional<MigCap> mig_cap_name(std::string_view name) {
  auto parts = split(name, '/');
  if (parts.size() < 3 || parts.size() > 4 || parts.back() != "access") return std::nullopt;
  auto number = [](std::string_view part, std::string_view prefix) -> std::optional<int> {
    if (part.substr(0, prefix.size()) != prefix || part.size() == prefix.size() ||
        part.size() > prefix.size() + 2)
      return std::nullopt;
    auto n = parse_uint(part.substr(prefix.size()));
    if (!n) return std::nullopt;
    return static_cast<int>(*n);
  };
  auto g = number(parts[0], "gpu"), i = number(parts[1], "gi");
  if (!g || !i || *g >= kMigMaxGpus || *i >= kMigMaxGis) return std::nullopt;
  MigCap cap{*g, *i, std::nullopt, 0};
  if (parts.size() == 4) {
    cap.ci = number(parts[2], "ci");
    if (!cap.ci || *cap.ci >= kMigMaxCis) return std::nullopt;
  }
  return cap;
}

}  // namespace

Result<std::string> parse_amd_compute_mode(std::string_view text) {
  return one_of(text, kComputeModes, "compute partition mode");
}

Result<std::vector<std::string>> parse_amd_compute_modes(std::string_view text) {
  std::vector<std::string> modes;
  for (auto part : split(trim(text), ',')) {
    auto m = parse_amd_compute_mode(part);
    if (!m) return m.error();
    modes.push_back(*m);
  }
  return modes;
}

Result<std::string> parse_amd_memory_mode(std::string_view text) {
  return one_of(text, kMemoryModes, "memory partition mode");
}

std::optional<int> amd_partitions_in_mode(std::string_view mode) {
  if (mode == "SPX") return 1;
  if (mode == "DPX") return 2;
  if (mode == "TPX") return 3;
  if (mode == "QPX") return 4;
  return std::nullopt;  // CPX: as many as the device has XCCs
}

int amd_memory_partitions(std::string_view memory_mode) {
  auto n = parse_uint(memory_mode.substr(std::min<size_t>(3, memory_mode.size())));
  return n ? static_cast<int>(*n) : 1;
}

int mig_cap_minor(int gpu, int gi, std::optional<int> ci) {
  return 3 + 135 * gpu + 9 * gi + (ci ? 1 + *ci : 0);
}

Result<std::vector<MigCap>> parse_mig_minors(std::string_view text) {
  std::vector<MigCap> caps;
  int line_no = 0;
  for (auto line : split_lines(text)) {
    ++line_no;
    auto where = [&] { return cat({"line ", std::to_string(line_no), ": "}); };
    auto space = line.rfind(' ');
    if (space == std::string_view::npos) return bad_input(where() + "expected '<name> <minor>'");
    auto name = line.substr(0, space);
    auto minor = parse_uint(line.substr(space + 1));
    if (!minor || *minor > 1u << 20) return bad_input(where() + "invalid minor");
    if (name == "config" || name == "monitor") continue;
    auto cap = mig_cap_name(name);
    if (!cap) return bad_input(cat({where(), "unknown capability '", escape_control(name), "'"}));
    cap->minor = static_cast<int>(*minor);
    if (cap->minor != mig_cap_minor(cap->gpu, cap->gi, cap->ci))
      return bad_input(cat({where(), "minor ", std::to_string(cap->minor), " of '",
                            escape_control(name), "' is not the driver's ",
                            std::to_string(mig_cap_minor(cap->gpu, cap->gi, cap->ci))}));
    caps.push_back(*cap);
  }
  return caps;
}

Result<int> parse_nv_cap_access_minor(std::string_view text) {
  for (auto line : split_lines(text)) {
    constexpr std::string_view key = "DeviceFileMinor:";
    if (line.substr(0, key.size()) != key) continue;
    auto minor = parse_uint(line.substr(key.size()));
    if (!minor || *minor > 1u << 20) return bad_input("invalid DeviceFileMinor");
    return static_cast<int>(*minor);
  }
  return bad_input("no DeviceFileMinor line");
}

Result<int> parse_proc_devices_major(std::string_view text, std::string_view name) {
  bool chars = false;
  for (auto line : split_lines(text)) {
    if (line == "Character devices:")
      chars = true;
    else if (line == "Block devices:")
      chars = false;
    else if (chars) {
      auto t = trim(line);
      auto space = t.find(' ');
      if (space == std::string_view::npos || t.substr(space + 1) != name) continue;
      auto major = parse_uint(t.substr(0, space));
      if (!major || *major > 4095) return bad_input(cat({"invalid major for ", name}));
      return static_cast<int>(*major);
    }
  }
  return bad_input(cat({"no character device '", name, "'"}));
}

Result<int> parse_sriov_count(std::string_view text) {
  auto n = parse_uint(trim(text));
  if (!n || *n > static_cast<uint64_t>(kMaxSriovVfs))
    return bad_input(cat({"invalid virtual function count '", escape_control(trim(text)), "'"}));
  return static_cast<int>(*n);
}

Result<VnpuId> parse_vnpu_node(std::string_view name) {
  constexpr std::string_view kPrefix = "vdavinci";
  auto digits = name.substr(std::min(name.size(), kPrefix.size()));
  auto n = name.starts_with(kPrefix) && digits.size() <= 6 ? parse_uint(digits) : std::nullopt;
  if (!n) return bad_input(cat({"'", escape_control(name), "' is not a vNPU node"}));
  if (*n < uint64_t{kVnpuBase} ||
      *n >= uint64_t{kVnpuBase} + uint64_t{kVnpuSlots} * (kMaxNpuId + 1))
    return bad_input(cat({"vNPU id ", std::to_string(*n), " is outside 100 + 16 x NPU id + slot"}));
  int id = static_cast<int>(*n);
  return VnpuId{id, (id - kVnpuBase) / kVnpuSlots, (id - kVnpuBase) % kVnpuSlots};
}

Result<std::vector<int>> parse_tile_names(const std::vector<std::string>& names,
                                          std::string_view prefix) {
  std::vector<uint64_t> ids;
  for (const auto& e : names)
    if (e.size() > prefix.size() && std::string_view(e).starts_with(prefix))
      if (auto n = parse_uint(std::string_view(e).substr(prefix.size()))) ids.push_back(*n);
  std::sort(ids.begin(), ids.end());
  if (ids.size() <= 1) return std::vector<int>{};
  std::vector<std::string> listed;
  for (auto n : ids) listed.push_back(cat({prefix, std::to_string(n)}));
  if (ids.size() > static_cast<size_t>(kMaxIntelTiles))
    return bad_input(
        cat({"lists ", std::to_string(ids.size()), " tiles (", escape_control(join(listed, ", ")),
             "), more than any Intel GPU has (", std::to_string(kMaxIntelTiles), ")"}));
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != i)
      return bad_input(cat({"lists tiles ", escape_control(join(listed, ", ")),
                            ", not numbered from 0 without gaps"}));
  return std::vector<int>(ids.begin(), ids.end());
}

}  // namespace anygpu
