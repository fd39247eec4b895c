// Reads and validates data/vendors.yaml and data/devices.yaml. Used at build time by
// tools/registry_compile (which turns them into C++), by tests, and at run time only for a
// registry ANYGPU_REGISTRY names (registry/registry_override.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.h"
#include "util/result.h"

namespace anygpu {

// Owns the strings and lists the Registry views point into.
class LoadedRegistry {
 public:
  Registry registry() const { return Registry(vendors_, devices_); }

  std::string_view keep(std::string s);
  template <class T>
  std::span<const T> keep_list(std::vector<T> items) {
    auto owned = std::make_shared<std::vector<T>>(std::move(items));
    storage_.push_back(owned);
    return *owned;
  }

  std::vector<Vendor> vendors_;
  std::vector<DeviceSpec> devices_;

 private:
  std::vector<std::shared_ptr<void>> storage_;
};

// Errors name FILE:LINE:COLUMN. `devices_text` may reference only vendors in `vendors_text`.
Result<std::unique_ptr<LoadedRegistry>> load_registry(std::string_view vendors_text,
                                                      const std::string& vendors_file,
                                                      std::string_view devices_text,
                                                      const std::string& devices_file);

}  // namespace anygpu
