// Pure parsers for the kernel's text formats. Each takes the file's text and returns a value
// or an error naming what was wrong; none of them touches the machine (fuzzed in tests/fuzz).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu {

// "32.0 GT/s PCIe", "2.5 GT/s"; the kernel's "Unknown" is nullopt, garbage an error.
Result<std::optional<double>> parse_link_speed(std::string_view text);
// "16"; the kernel's unknown widths (0, 63, 255) are nullopt, garbage an error.
Result<std::optional<int>> parse_link_width(std::string_view text);
// "-1" is "no NUMA node" (nullopt); garbage is an error.
Result<std::optional<int>> parse_numa_node(std::string_view text);
// "0x030200" -> 0x030200.
Result<uint32_t> parse_pci_class(std::string_view text);
// "0x10de" -> 0x10de.
Result<uint16_t> parse_pci_id(std::string_view text);

// /proc/driver/nvidia/gpus/<bus>/information.
struct NvidiaGpuInformation {
  std::optional<std::string> model;
  std::optional<std::string> uuid;
  std::optional<int> minor;
  std::optional<std::string> bus_location;
};
Result<NvidiaGpuInformation> parse_nvidia_information(std::string_view text);

// KFD topology node `properties`: "key value" lines with unsigned decimal values.
Result<std::map<std::string, uint64_t>> parse_kfd_properties(std::string_view text);
// gfx_target_version 90402 -> "gfx942"; 0 (a CPU node) and out-of-range values are errors.
Result<std::string> decode_gfx_target_version(uint64_t v);

// PRETTY_NAME of os-release (falls back to NAME VERSION).
Result<std::string> parse_os_release(std::string_view text);

// "libze_loader.so.1.17.6" -> "1.17.6"; the file name must carry more than the soname.
std::optional<std::string> version_from_library_file(std::string_view file_name,
                                                     std::string_view soname);

}  // namespace anygpu
