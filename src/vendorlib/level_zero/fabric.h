// Xe Link between devices from Level Zero's fabric extension (fabric_abi.h), read inside a
// library worker: the edges between every two device vertices of this node, counted per pair
// of PCI addresses. probe.cc hands them to discovery as Device::xelink (src/topo/xelink.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/dynamic_library.h"
#include "vendorlib/bus_key.h"

namespace anygpu::ze {

// The Xe Link edges between two devices (a < b by PCI address).
struct XeLinkPair {
  BusKey a, b;
  int edges = 0;
};

struct XeLinkReading {
  // The local device vertices, by PCI address (when the links are unknown: those listed
  // before the failing call, if any).
  std::vector<BusKey> devices;
  std::vector<XeLinkPair> pairs;
  // Set when the links could not be read (an entry point missing, a call failing): then
  // `pairs` is empty and the links are unknown, never "none".
  std::optional<std::string> unknown;
};

// The edges Level Zero reports between the device vertices of each driver (zeFabricEdgeGetExp
// on every two), and where two devices have none between them, the edges between their tiles
// (sub-vertices) summed: a driver may report Xe Link at either level. Only edges whose model is
// "XeLink" count; remote vertices (another node) and switches are left out.
XeLinkReading read_xe_links(const DynamicLibrary& lib);

}  // namespace anygpu::ze
