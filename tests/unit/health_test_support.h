// Shared by the library-health tests: a device's report by bus id, a mock library host's facts
// read through the worker and evaluated, a warning naming a device (find_code is in
// finding_test_support.h).
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "finding_test_support.h"
#include "health/health.h"
#include "health/health_client.h"
#include "probe/probe.h"
#include "test_support.h"

namespace anygpu::test {

inline const health::DeviceHealth& device_at(const health::HealthReport& r, std::string_view bus) {
  for (const auto& d : r.devices)
    if (d.pci_bus_id == bus) return d;
  ADD_FAILURE() << "no device " << bus;
  static health::DeviceHealth none;
  return none;
}

// What the worker read from the mock library, and the report evaluated with it.
struct LibraryEvaluation {
  health::LibraryHealth lib;
  health::HealthReport report;
};

// The host's kernel log is readable and empty, so that a device's health rests on the library's
// facts (without it every NVIDIA, AMD and Intel device would be `unknown`).
inline LibraryEvaluation evaluate_with_library(const MockLibraryHost& h) {
  write_file(h.root + "/dev/kmsg", "");
  auto host = h.host();
  auto inv = probe(host);
  LibraryEvaluation e{worker::read_library_health(host, inv), {}};
  health::HealthOptions o;
  o.library = &e.lib;
  auto r = health::evaluate_health(host, inv, o);
  EXPECT_TRUE(r) << r.error().message;
  if (r) e.report = std::move(*r);
  return e;
}

// Whether one of the report's warnings names the device and says `text`.
inline bool warns(const health::HealthReport& r, std::string_view bus, std::string_view text) {
  for (const auto& w : r.warnings)
    if (w.find(bus) != std::string::npos && w.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace anygpu::test
