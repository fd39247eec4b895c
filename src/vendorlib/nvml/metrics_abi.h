// The NVML metric entry points anygpu calls, declared here (layouts as in nvml.h) so no SDK is
// needed to build. Shared with the mock NVML library the metrics tests build.
#pragma once

#include "vendorlib/nvml/abi.h"

namespace anygpu::nvml {

// nvmlUtilization_t: percent of the last sample period the GPU / memory controller was busy.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

inline constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
inline constexpr int kClockGraphics = 0;   // NVML_CLOCK_GRAPHICS
inline constexpr int kClockSm = 1;         // NVML_CLOCK_SM
inline constexpr int kClockMem = 2;        // NVML_CLOCK_MEM
inline constexpr Return kErrorGpuIsLost = 15;

using UtilizationFn = Return (*)(Device, Utilization*);
using TemperatureFn = Return (*)(Device, int, unsigned int*);  // sensor type is a C enum
using PowerFn = Return (*)(Device, unsigned int*);             // milliwatts (also the limit)
using EnergyFn = Return (*)(Device, unsigned long long*);      // millijoules since driver load
using ClockFn = Return (*)(Device, int, unsigned int*);        // clock type enum, MHz

}  // namespace anygpu::nvml
