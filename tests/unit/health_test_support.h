// Shared by the library-health tests: a finding by code, a device's report by bus id.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "health/health.h"

namespace anygpu::test {

inline const health::Finding* find_code(const std::vector<health::Finding>& fs,
                                        std::string_view code) {
  for (const auto& f : fs)
    if (f.code == code) return &f;
  return nullptr;
}

inline const health::DeviceHealth& device_at(const health::HealthReport& r, std::string_view bus) {
  for (const auto& d : r.devices)
    if (d.pci_bus_id == bus) return d;
  ADD_FAILURE() << "no device " << bus;
  static health::DeviceHealth none;
  return none;
}

}  // namespace anygpu::test
