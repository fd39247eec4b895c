// One backend per vendor whose kernel interfaces say more than the generic PCI/DRM facts.
// Vendors whose knowledge is all data (node patterns, device table) need no backend.
#pragma once

#include <string_view>
#include <vector>

#include "probe/pci.h"

namespace anygpu {

class VendorBackend {
 public:
  virtual ~VendorBackend() = default;
  // `devices` are this vendor's, in PCI bus order. Runtime-suspended devices are included;
  // a backend must not read anything that would resume them.
  virtual void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const = 0;
};

// The explicit table: null for vendors served by data alone.
const VendorBackend* backend_for(std::string_view vendor);

// Shared by every vendor after its backend: device nodes from the registry patterns, the
// device table, and pci.ids for names nobody else knew.
void apply_registry_facts(const ProbeContext& ctx, PciDevice& d);

}  // namespace anygpu
