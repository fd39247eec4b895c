// The device model every command consumes: an immutable snapshot of what the host has.
// Unknown values are std::optional and stay absent from every output (never 0 or "").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/library_status.h"
#include "util/diagnostics.h"

namespace anygpu {

struct PciAddress {
  uint32_t domain = 0;
  uint8_t bus = 0;
  uint8_t device = 0;
  uint8_t function = 0;

  static std::optional<PciAddress> parse(std::string_view text);  // "0000:18:00.0"
  std::string str() const;                                        // "0000:18:00.0"
  auto operator<=>(const PciAddress&) const = default;
};

struct PciLink {
  std::optional<double> speed_gts;
  std::optional<int> width;
};

struct PciInfo {
  PciAddress address;
  uint16_t vendor_id = 0;
  uint16_t device_id = 0;
  uint32_t class_code = 0;
  PciLink link;
  std::string root_complex;  // "pci0000:17": the host bridge the device hangs off
};

// No accelerator has 64 PiB of memory: a larger size read from a file or a library is
// corrupt (e.g. 2^64-1 from a broken counter) and is left absent with a warning.
inline constexpr uint64_t kMaxPlausibleMemoryBytes = uint64_t{1} << 56;

struct DriverInfo {
  std::string name;
  std::optional<std::string> version;
};

// JSON: "ok", "driver-missing", "library-missing", "suspended", "passthrough".
enum class DeviceStatus { ok, driver_missing, library_missing, suspended, passthrough };
std::string_view to_string(DeviceStatus s);

// How a device is split into logical devices (SPEC "Partitions"). Present only on a device
// whose kernel interfaces show more than one partition.
struct Partitioning {
  std::string mode;                        // "mig", "CPX", "DPX", "QPX", "TPX"
  std::optional<std::string> memory_mode;  // AMD "NPS1", "NPS4", …
};

// A character device by number: what a container runtime needs to make a node the host has
// not made (MIG cap nodes exist only once nvidia-modprobe has run, facts F-6).
struct CharDeviceNumber {
  std::string path;
  uint32_t major = 0, minor = 0;
  bool operator==(const CharDeviceNumber&) const = default;
};

// One logical device of a partitioned device, in the order the vendor runtime enumerates them.
struct Partition {
  int index = 0;
  std::string id;  // "MIG-<uuid>", or "<bus id>/<index>" where the kernel gives no identifier
  std::optional<std::string> profile;
  std::optional<std::string> uuid;
  std::optional<uint64_t> memory_total_bytes;
  std::vector<std::string> device_nodes;       // the nodes this partition needs besides shared ones
  std::vector<CharDeviceNumber> node_numbers;  // those of device_nodes whose numbers are known
  std::optional<std::string> render_node;
  std::optional<int> numa_node;
  // Not rendered; what launch needs to name the partition to its runtime.
  std::optional<int> gpu_instance, compute_instance;  // MIG GI and CI ids (the cap paths' giN/ciN)
  // AMD: the logical id HIP and ROCr enumerate it under (its rank among the host's KFD GPU nodes).
  std::optional<int> runtime_index;
  // Ascend vNPU: the AI Cores its template gives it, as DCMI reports them (a fraction is a share).
  std::optional<double> ai_cores;
};

// One active NVLink of a device as NVML reports it (nvmlDeviceGetNvLinkState enabled): its link
// index and the far end's PCI address as NVML's numbers, unchecked (src/topo/nvlink.cc judges
// them against the host's devices), and what NVML says is there.
enum class NvLinkPeer { gpu, nvswitch, ibm_npu, unknown };
std::string_view to_string(NvLinkPeer p);  // "gpu", "switch", "ibm-npu", "unknown"
std::optional<NvLinkPeer> parse_nvlink_peer(std::string_view text);
inline constexpr unsigned kMaxNvLinks = 36;  // NVML_NVLINK_MAX_LINKS: link indexes are below it
struct NvLinkEnd {
  unsigned link = 0;
  uint64_t domain = 0, bus = 0, device = 0;
  NvLinkPeer peer = NvLinkPeer::unknown;
};

// A device's NVLinks as far as the library could tell: `active` when it answered for every link
// index, else `unknown` says why (a missing entry point, a failing call) and `active` is empty.
struct NvLinkFacts {
  std::vector<NvLinkEnd> active;
  std::optional<std::string> unknown;
};

// The NPUs an Ascend NPU reaches over HCCS as DCMI reports them (dcmi_get_topo_info_by_device_id
// per pair), by PCI address, unchecked (src/topo/hccs.cc judges them); `unknown` says why DCMI
// could not tell, and `peers` is empty then.
struct HccsFacts {
  std::vector<PciAddress> peers;
  std::optional<std::string> unknown;
};

// The devices an Intel GPU reaches over Xe Link as Level Zero's fabric extension reports them
// (zeFabricEdgeGetExp between device vertices, else their tiles' edges summed), by PCI address,
// unchecked (src/topo/xelink.cc judges them), each with how many Xe Link edges join the two;
// `unknown` says why the fabric could not be read, and `peers` is empty then.
struct XeLinkPeer {
  PciAddress address;
  int edges = 0;
};
struct XeLinkFacts {
  std::vector<XeLinkPeer> peers;
  std::optional<std::string> unknown;
};

// A PCI physical function with SR-IOV virtual functions enabled (sriov_totalvfs, sriov_numvfs;
// Linux Documentation/ABI/testing/sysfs-bus-pci). Present only while num_vfs > 0.
struct Sriov {
  int total_vfs = 0;
  int num_vfs = 0;
};

struct Device {
  std::string vendor;       // registry id
  std::string vendor_name;  // PCI vendor name
  int index = 0;            // per vendor, PCI bus order
  std::optional<std::string> name;
  PciInfo pci;
  std::optional<int> numa_node;
  std::optional<std::string> cpu_affinity;  // cpulist of the CPUs local to the device
  std::optional<DriverInfo> driver;
  std::optional<std::string> arch;
  std::optional<uint64_t> memory_total_bytes;
  std::optional<double> memory_bandwidth_gbps;
  std::optional<std::string> uuid;
  std::vector<std::string> device_nodes;
  std::optional<std::string> render_node;
  std::optional<std::string> card_node;
  std::optional<int> minor;  // vendor device minor (/dev/nvidiaN, /dev/accel/accelN)
  DeviceStatus status = DeviceStatus::ok;
  bool integrated = false;  // the registry knows it as graphics in the CPU package (iGPU, APU)
  std::vector<std::string> sources;  // "sysfs", "registry", "nvml", …
  std::optional<Partitioning> partitioning;
  std::vector<Partition> partitions;
  std::optional<NvLinkFacts> nvlink;  // absent: no library was asked (not rendered by list)
  std::optional<HccsFacts> hccs;      // likewise, DCMI's
  std::optional<XeLinkFacts> xelink;  // likewise, Level Zero's fabric
  std::optional<std::string> physfn;  // an SR-IOV virtual function: its physical function's bus id
  std::optional<Sriov> sriov;         // a physical function whose virtual functions are enabled

  void add_source(std::string_view source);
  // Bound to the vendor's own driver: the vendor runtime enumerates it and its nodes exist
  // (not driver-missing, not passthrough).
  bool bound() const;
  // May be selected and handed to a process: bound and awake. A missing management library
  // costs only detail, so library-missing devices are usable.
  bool usable() const;
  // May be selected: usable, or runtime-suspended (its driver wakes it on first use; discovery
  // itself never does).
  bool selectable() const;
  // A physical function whose virtual functions are enabled: its memory and engines are carved
  // out for them (and on a hypervisor they belong to guests), so its VFs are the units, not it.
  bool lends_to_vfs() const { return sriov && sriov->num_vfs > 0; }
};

// Partition `p` of `parent` as one device of its own, for what hands devices to a container:
// its nodes are the partition's alone (MIG: the parent's /dev/nvidiaN and the GI and CI cap
// nodes, F-5; AMD: the partition's card and render node), never its siblings'. A MIG instance
// gets no DRM node (nvidia-container-toolkit adds /dev/dri only for +gfx profiles). Its memory
// and NUMA node are the partition's (memory unknown when the partition's is), the rest the
// parent's.
Device partition_device(const Device& parent, const Partition& p);

struct HostInfo {
  std::optional<std::string> hostname, kernel, os, arch;
  std::optional<int> cpus, numa_nodes;
};

struct RuntimeComponent {
  std::string vendor;
  std::string component;  // cuda-driver, rocm, cann, level-zero, …
  std::string version;
  std::string source;  // file or library it was read from
};

// What happened with one vendor management library.
struct LibraryReport {
  std::string vendor;
  std::string api;
  LibraryStatus status = LibraryStatus::missing;
  std::optional<std::string> path;
  std::optional<std::string> message;
};

struct Inventory {
  HostInfo host;
  std::vector<Device> devices;
  std::vector<RuntimeComponent> runtimes;
  std::vector<LibraryReport> libraries;
  // What discovery went on without (a malformed file, a failed library), each naming where.
  // A command hands these on to its own channel; anygpu.inventory/v1 carries them as "warnings".
  Diagnostics diagnostics;

  std::vector<const Device*> of_vendor(std::string_view vendor) const;
};

}  // namespace anygpu
