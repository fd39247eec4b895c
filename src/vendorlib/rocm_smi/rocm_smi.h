// ROCm SMI (librocm_smi64.so) and Hygon's fork of it: discovery only, inside a library worker.
// The ABI is declared in abi.h (tests/unit/abi_layout_test.cc compares it with
// librocm-smi-dev). Health and metrics of AMD devices come from the kernel (amdgpu's sysfs).
#pragma once

#include "host/dynamic_library.h"
#include "vendorlib/entry_points.h"

namespace anygpu::rsmi {

// Product name and VRAM size per device, matched to PCI functions by the BDF id the library
// reports (probe.cc).
void probe(const DynamicLibrary& lib, LibraryResult& result);

}  // namespace anygpu::rsmi
