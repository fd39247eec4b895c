// Every kernel interface path anygpu reads, in one place. Host paths, always read through
// HostRoot, which prefixes them with `--root` when one is set.
#pragma once

#include <string_view>

namespace anygpu::paths {

// The kernel's own file systems, as prefixes ("/sys/…"): what they hold is made by the kernel
// at read time, not stored (a gather copies their contents as read; config space is binary).
inline constexpr std::string_view kSysfsPrefix = "/sys/";
inline constexpr std::string_view kProcfsPrefix = "/proc/";
inline constexpr std::string_view kDevfsPrefix = "/dev/";
inline constexpr std::string_view kKernelFilesystemPrefixes[] = {kSysfsPrefix, kProcfsPrefix,
                                                                 kDevfsPrefix};

inline constexpr std::string_view kPciDevices = "/sys/bus/pci/devices";
inline constexpr std::string_view kModules = "/sys/module";
inline constexpr std::string_view kCpuOnline = "/sys/devices/system/cpu/online";
inline constexpr std::string_view kNodeOnline = "/sys/devices/system/node/online";
inline constexpr std::string_view kKfdNodes = "/sys/class/kfd/kfd/topology/nodes";
// RDMA devices (mlx5_0 …): `device` links to the PCI function, `device/net/` names the netdev.
inline constexpr std::string_view kInfiniband = "/sys/class/infiniband";
// Where every PCI function's resolved sysfs path starts, bridges down to the function.
inline constexpr std::string_view kSysDevicesPrefix = "/sys/devices/";
inline constexpr std::string_view kNvidiaGpus = "/proc/driver/nvidia/gpus";
// Where Slurm's cgroup plugins put a job's processes: cgroup v1's freezer hierarchy
// (slurm[_NODE]/uid_U/job_N/…) and cgroup v2's system slice ([NODE_]slurmstepd.scope/job_N/…).
inline constexpr std::string_view kCgroupV1Freezer = "/sys/fs/cgroup/freezer";
inline constexpr std::string_view kCgroupV2SystemSlice = "/sys/fs/cgroup/system.slice";
// MIG: the driver's capability tree per GPU minor, its cap-node minors, and the device majors
// (where the nvidia-caps major is registered).
inline constexpr std::string_view kNvidiaCapabilities = "/proc/driver/nvidia/capabilities";
inline constexpr std::string_view kNvidiaMigMinors = "/proc/driver/nvidia-caps/mig-minors";
inline constexpr std::string_view kProcDevices = "/proc/devices";
// AMD partitions beyond the first are DRM devices on platform devices (amdgpu_xcp_<N>).
inline constexpr std::string_view kPlatformDevices = "/sys/devices/platform";
inline constexpr std::string_view kHostname = "/proc/sys/kernel/hostname";
inline constexpr std::string_view kOsRelease = "/proc/sys/kernel/osrelease";
inline constexpr std::string_view kArch = "/proc/sys/kernel/arch";
inline constexpr std::string_view kEtcHostname = "/etc/hostname";
inline constexpr std::string_view kOsReleaseFiles[] = {"/etc/os-release", "/usr/lib/os-release"};
inline constexpr std::string_view kPciIdsFiles[] = {
    "/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids", "/usr/share/pci.ids"};
inline constexpr std::string_view kDevDri = "/dev/dri";

}  // namespace anygpu::paths

// metrics: per-device metric files, relative to /sys/bus/pci/devices/<bdf> (kPciDevices).
namespace anygpu::paths::metrics {
inline constexpr std::string_view kHwmonDir = "hwmon";
inline constexpr std::string_view kGpuBusyPercent = "gpu_busy_percent";     // amdgpu, hydcu
inline constexpr std::string_view kVramUsed = "mem_info_vram_used";         // bytes
inline constexpr std::string_view kVramTotal = "mem_info_vram_total";       // bytes
inline constexpr std::string_view kDrmDir = "drm";                          // cardN beneath
inline constexpr std::string_view kI915CurFreq = "gt_cur_freq_mhz";         // in drm/cardN
inline constexpr std::string_view kXeCurFreq = "tile0/gt0/freq0/cur_freq";  // MHz
}  // namespace anygpu::paths::metrics

// launch: this process's own argv, so `anygpu run -- COMMAND…` hands COMMAND on byte for byte
// (the option parser rewrites some arguments, e.g. "[a,b]").
namespace anygpu::paths {
inline constexpr std::string_view kSelfCmdline = "/proc/self/cmdline";
// This process's own executable (never beneath --root): the library worker re-executes it.
inline constexpr std::string_view kSelfExe = "/proc/self/exe";
// health: the kernel log (record device, or a captured copy under a root) and its clock.
inline constexpr std::string_view kKmsg = "/dev/kmsg";
inline constexpr std::string_view kUptime = "/proc/uptime";
// The host's groups, for the numeric ids of video and render (`--group-add`).
inline constexpr std::string_view kLaunchGroupFile = "/etc/group";
}  // namespace anygpu::paths

// cluster: CPU topology, to turn a device's local CPUs into the logical core indices that
// gres.conf Cores= takes (cpuN/topology/{physical_package_id,die_id,core_id}).
namespace anygpu::paths {
inline constexpr std::string_view kCpuDevices = "/sys/devices/system/cpu";
}  // namespace anygpu::paths
