// Every kernel interface path anygpu reads, in one place. Host paths, always read through
// HostRoot, which prefixes them with `--root` when one is set.
#pragma once

#include <string_view>

namespace anygpu::paths {

inline constexpr std::string_view kPciDevices = "/sys/bus/pci/devices";
inline constexpr std::string_view kModules = "/sys/module";
inline constexpr std::string_view kCpuOnline = "/sys/devices/system/cpu/online";
inline constexpr std::string_view kNodeOnline = "/sys/devices/system/node/online";
inline constexpr std::string_view kKfdNodes = "/sys/class/kfd/kfd/topology/nodes";
inline constexpr std::string_view kNvidiaGpus = "/proc/driver/nvidia/gpus";
inline constexpr std::string_view kHostname = "/proc/sys/kernel/hostname";
inline constexpr std::string_view kOsRelease = "/proc/sys/kernel/osrelease";
inline constexpr std::string_view kArch = "/proc/sys/kernel/arch";
inline constexpr std::string_view kEtcHostname = "/etc/hostname";
inline constexpr std::string_view kOsReleaseFiles[] = {"/etc/os-release", "/usr/lib/os-release"};
inline constexpr std::string_view kPciIdsFiles[] = {
    "/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids", "/usr/share/pci.ids"};
inline constexpr std::string_view kDevDri = "/dev/dri";

}  // namespace anygpu::paths
