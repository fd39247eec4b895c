// The vendor registry: what anygpu knows about each vendor, as data (data/vendors.yaml and
// data/devices.yaml). The YAML is validated and compiled into the binary at build time, so the
// types here are views over static storage (or over a LoadedRegistry when read at run time).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace anygpu {

using Strings = std::span<const std::string_view>;

struct NamedValue {
  std::string_view name;
  std::string_view value;
};

// Where a version string is read: `after` takes the token after a marker, `key` a key=value
// line, neither the first line. `{driver}` in path is the bound kernel driver.
struct VersionSource {
  std::string_view path;
  std::string_view after;
  std::string_view key;
};

struct LibrarySpec {
  std::string_view api;   // nvml, ixml, rocm-smi, amd-smi, level-zero, dcmi, cndev, mtml, …
  Strings sonames;        // versioned soname first
  Strings dirs;           // vendor directories besides the standard library dirs
  bool required = false;  // ships with the driver: absence means a broken install
};

// A user-space stack whose version is reported under `runtimes`.
struct RuntimeSpec {
  std::string_view component;
  std::string_view path;     // version file …
  std::string_view key;      // … and its key=value key, if any
  std::string_view library;  // or: version from the real file name behind this soname
  bool derived = false;      // or: computed from the driver version (NVIDIA's cuda-driver)
};

// A read-only (or read-write) bind mount of a host driver path into containers.
struct MountSpec {
  std::string_view path;  // host path = container path
  Strings options;        // ro, nosuid, nodev, noexec
};

// The host's driver user space a container needs beside the device nodes: files that must
// match the loaded kernel module, so they come from the host, never from the image. Host paths;
// `{driver_version}` stands for the bound driver's version, `*` globs the last component.
struct DriverFilesSpec {
  Strings libraries;         // sonames, through ld.so.cache, then library_dirs
  Strings library_patterns;  // real file names of ld.so.cache entries ("*.so.{driver_version}")
  Strings library_dirs;      // the vendor's own library directories (also the container's)
  Strings tools;             // management tools by name: tool_dirs, then the standard bin dirs
  Strings tool_dirs;
  Strings firmware;
  Strings sockets;  // IPC endpoints of the vendor's daemons (files or directories)
  Strings config;   // configuration and topology files
  std::span<const NamedValue> sources;  // field -> public URL
  Strings unverified;

  bool empty() const {
    return libraries.empty() && library_patterns.empty() && tools.empty() && firmware.empty() &&
           sockets.empty() && config.empty();
  }
};

// The vendor's container toolkit: a runtime hook that injects its devices and driver files.
struct ToolkitSpec {
  std::string_view name;          // "NVIDIA Container Toolkit"; empty: the vendor has none
  Strings files;                  // any present means installed; the first is where it lives
  std::string_view hint;          // how to install it (packages are the operator's job)
  std::string_view cdi_generate;  // its command that writes a CDI spec to the path appended
};

// What a compute container of this vendor gets beyond each device's own nodes, and what it
// must not get (container_edits() in src/container/ is the one reader).
struct ContainerSpec {
  Strings drm;       // DRM nodes of a selected device it gets: "card", "render" (none: [])
  Strings withhold;  // nodes of the vendor a compute container never gets (display only)
  std::span<const MountSpec> mounts;  // driver files the vendor's user space reads
  std::span<const NamedValue> env;    // set in every container of this vendor
  Strings groups;                     // host groups (by name, /etc/group) the container user joins
  DriverFilesSpec driver_files;       // empty for a vendor whose list is not known yet
  ToolkitSpec toolkit;                // empty name: none
  // The vendor's tooling numbers devices by physical id, the {minor} of its per-device node
  // (Ascend: ASCEND_VISIBLE_DEVICES=3 is /dev/davinci3): CDI specs also name each device so.
  bool physical_names = false;
};

// Who may open the vendor's nodes, and which of them its stack cannot do without (doctor).
struct AccessSpec {
  Strings essential;       // shared nodes without which the stack fails
  std::string_view group;  // the group that owns the nodes; empty: DRM's video/render
  std::string_view fix;    // how to recreate missing nodes; empty: reload the driver
};

// How Slurm hands the vendor's devices to a job (the registry's `slurm:` section).
struct SlurmSpec {
  // gres.conf(5) environment flags for the vendor's Name=gpu lines: which variable slurmd sets
  // for a step — nvidia_gpu_env CUDA_VISIBLE_DEVICES, amd_gpu_env ROCR_VISIBLE_DEVICES,
  // intel_gpu_env ZE_AFFINITY_MASK, opencl_env GPU_DEVICE_ORDINAL — or no_gpu_env (none: Slurm
  // knows no variable the vendor's runtime reads). Empty: not known (Slurm's default then sets
  // all four).
  Strings gres_flags;
};

// The torch build that runs on the vendor's devices (torch.build in the registry).
struct VendorTorchBuild {
  // As torch reports it: cuda, rocm, xpu; "plugin": a CPU torch and the vendor's torch_package;
  // empty: not known (the vendor's own build).
  std::string_view kind;
  bool pytorch_index = false;  // PyTorch's own wheel index serves it
};

struct Vendor {
  std::string_view id;
  std::string_view name;          // PCI vendor name (pci.ids)
  std::string_view display_name;  // short name for messages ("NVIDIA", "Huawei Ascend")
  std::span<const uint16_t> pci_vendor_ids;
  std::span<const uint16_t> pci_classes;  // class+subclass, the upper 16 of 24 bits
  Strings drivers;
  std::span<const VersionSource> driver_version;
  Strings per_device_nodes;  // {index} and {minor} placeholders
  Strings shared_nodes;
  bool drm_nodes = false;
  std::span<const LibrarySpec> libraries;
  std::span<const RuntimeSpec> runtimes;
  Strings smi;
  std::string_view torch_device;
  std::string_view torch_package;
  std::string_view dist_backend;
  std::string_view torch_build_name;  // cuda rocm xpu plugin vendor vendor-cuda vendor-rocm
  std::string_view visible_devices_env;
  std::span<const NamedValue> extra_env;
  std::string_view container_visible_devices_env;  // empty when the vendor has none
  // Variables the vendor's runtime also reads to narrow or re-index devices (HIP reads
  // CUDA_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL too): removed beside visible_devices_env.
  Strings conflicting_env;
  // The first driver version whose runtime names a partition by a UUID of its own (NVIDIA MIG:
  // MIG-<uuid> from 470.42.01; before it MIG-GPU-<gpu uuid>/<gi>/<ci>); empty: not applicable.
  std::string_view partition_uuid_since;
  Strings backend_names;
  std::string_view cdi_kind;
  std::string_view k8s_resource;  // may contain {driver}
  ContainerSpec container;
  AccessSpec access;
  SlurmSpec slurm;
  // Kernel log lines of the vendor's driver that dev_printk does not attribute: those starting
  // with (NVIDIA's "NVRM:") or containing one of these.
  Strings kmsg_starts;
  Strings kmsg_contains;
  std::span<const NamedValue> sources;  // field -> public URL
  Strings unverified;                   // fields not confirmed by a public source

  bool matches_pci(uint16_t vendor_id, uint32_t class_code) const;
  bool is_usable_driver(std::string_view driver) const;
  VendorTorchBuild torch_build() const;
};

struct DeviceSpec {
  std::string_view vendor;
  uint16_t device_id = 0;
  std::string_view name;
  std::string_view arch;
  std::optional<double> memory_gib;
  std::optional<double> memory_bandwidth_gbps;
  // Peak dense 16-bit matrix throughput (BF16, or FP16 where the model has no BF16 units), from
  // the vendor's datasheet at matmul_source: what `anygpu preflight` judges its matmul against.
  std::optional<double> matmul_tflops;
  std::string_view matmul_source;
  bool integrated = false;  // graphics in the CPU package, on system memory (iGPU, APU)
  // The product line: "datacenter", "workstation" or "consumer" (NVIDIA's CUDA GPU list groups
  // them so; CUDA forward compatibility works on data-center GPUs only). Empty: not recorded.
  std::string_view segment;
  std::string_view source;
  Strings unverified;
};

class Registry {
 public:
  constexpr Registry(std::span<const Vendor> vendors, std::span<const DeviceSpec> devices)
      : vendors_(vendors), devices_(devices) {}

  // The registry in force for this process: the compiled-in one, or the one ANYGPU_REGISTRY
  // names once prepare_registry() has read it (registry/registry_override.h).
  static const Registry& builtin();

  std::span<const Vendor> vendors() const { return vendors_; }
  std::span<const DeviceSpec> devices() const { return devices_; }
  const Vendor* vendor(std::string_view id) const;
  // The vendor a PCI function belongs to, or null when it is not an accelerator we know.
  const Vendor* vendor_for_pci(uint16_t vendor_id, uint32_t class_code) const;
  const DeviceSpec* device(std::string_view vendor, uint16_t device_id) const;

 private:
  std::span<const Vendor> vendors_;
  std::span<const DeviceSpec> devices_;
};

}  // namespace anygpu
