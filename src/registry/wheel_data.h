// The framework build table (data/wheels.yaml): torch releases and their variants (CUDA, ROCm,
// XPU, CPU) with the GPU architectures each one has kernels for, the NVIDIA driver floors per
// CUDA version, and the vendors whose torch support is a plugin package.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

struct WheelVariant {
  std::string name;                 // cu128, rocm6.4, xpu, cpu
  std::string kind;                 // cuda | rocm | xpu | cpu
  std::string cuda;                 // toolkit version, "12.8"
  std::vector<std::string> arches;  // sm_XY with cubins
  std::optional<std::string> ptx;   // sm_XY whose PTX is embedded (JIT for newer GPUs)
  std::string rocm;                 // "6.2.4"
  std::vector<std::string> gfx;     // gfx targets
};

struct TorchRelease {
  std::string version;  // "2.9": releases are keyed by major.minor
  std::string latest;   // "2.9.1": what an unpinned install gets
  std::vector<WheelVariant> variants;
  std::vector<std::string> unverified;

  const WheelVariant* variant(std::string_view name) const;
};

struct WheelPackage {
  std::string name;
  std::vector<TorchRelease> releases;  // oldest first

  // By "2.9", "2.9.1" or "2.9.1+cu128"; null when unknown.
  const TorchRelease* release(std::string_view version) const;
  std::string known_versions() const;  // "2.1, 2.2, …"
};

struct CudaFloor {
  std::string cuda;        // "12" (family) or "12.8" (toolkit)
  std::string driver_min;  // Linux driver
};

// A row of AMD's kernel-driver / user-space support matrix.
struct AmdgpuDriver {
  std::string kmd;                // the table's driver row: "6.2", "30.10"
  std::string module;             // major.minor of its amdgpu-dkms module ("6.8"); may be empty
  std::vector<std::string> rocm;  // supported user space, major.minor
};

struct PluginPair {
  std::string torch, plugin, cann;
};

// A CANN release and the Ascend HDK (driver) releases its release notes list, major.minor
// ("25.5" for "Ascend HDK 25.5.X").
struct CannDrivers {
  std::string cann;
  std::vector<std::string> drivers;
  std::string source;
};

struct VendorPlugin {
  std::string vendor, package, index_url, source, note;
  std::vector<PluginPair> pairs;
  std::vector<CannDrivers> cann_drivers;  // only the CANN releases whose notes were read

  const CannDrivers* drivers_for_cann(std::string_view cann) const;
};

struct WheelData {
  std::string file;  // where it was read from ("<built-in>" for the embedded copy)
  std::string index_url;
  std::vector<CudaFloor> families, toolkits;
  std::vector<AmdgpuDriver> amdgpu_drivers;
  std::vector<WheelPackage> packages;
  std::vector<VendorPlugin> plugins;

  const WheelPackage* package(std::string_view name) const;
  const VendorPlugin* plugin(std::string_view vendor) const;
  std::string index_for(std::string_view variant) const;
  // Driver floor of the CUDA major version of `cuda` ("12.8" -> 525.60.13).
  std::optional<std::string> family_driver_min(std::string_view cuda) const;
  std::optional<std::string> toolkit_driver_min(std::string_view cuda) const;
  // The newest toolkit whose floor `driver` meets ("550.90.07" -> "12.4"); null below every
  // floor or when the driver version is not a dotted number.
  std::optional<std::string> cuda_for_driver(std::string_view driver) const;
  // The row of an amdgpu module version (/sys/module/amdgpu/version, "6.8.5"); null when none.
  const AmdgpuDriver* amdgpu_driver(std::string_view module_version) const;
};

// Parses and validates; errors are bad_input naming FILE:LINE:COLUMN.
Result<WheelData> parse_wheel_data(std::string_view text, const std::string& file);
Result<WheelData> load_wheel_data(const std::string& path);
// The copy of data/wheels.yaml compiled into this binary (parsed once).
const WheelData& builtin_wheel_data();
std::string_view builtin_wheel_data_text();

// The table a process decides with: the file ANYGPU_WHEELS names (a newer data/wheels.yaml,
// no rebuild needed), else the built-in one. Read once per process; a file that cannot be
// read, is writable by others or is invalid is an error naming FILE:LINE:COLUMN, returned on
// every call. Entry points (the CLI, the C ABI) ask prepare_wheel_data() before anything else;
// true when the file is in force.
inline constexpr const char* kWheelsEnv = "ANYGPU_WHEELS";
Result<bool> prepare_wheel_data();
const WheelData& wheel_data();

}  // namespace anygpu
