// The subset of rocm_smi.h that anygpu calls (shared with the tests' mock library).
#pragma once

#include <cstddef>
#include <cstdint>

namespace anygpu::rsmi {

using Status = int;
inline constexpr Status kSuccess = 0;
inline constexpr int kMemTypeVram = 0;  // RSMI_MEM_TYPE_VRAM

using InitFn = Status (*)(uint64_t);
using ShutdownFn = Status (*)();
using CountFn = Status (*)(uint32_t*);
using PciIdFn = Status (*)(uint32_t, uint64_t*);  // BDFID = domain<<32 | bus<<8 | dev<<3 | fn
using NameFn = Status (*)(uint32_t, char*, size_t);
using MemoryTotalFn = Status (*)(uint32_t, int, uint64_t*);

}  // namespace anygpu::rsmi
