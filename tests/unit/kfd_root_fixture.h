// A fixture host copied into a temporary root whose KFD topology a test may damage, then read.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "host/host_root.h"
#include "test_support.h"
#include "topo/topology.h"

namespace anygpu::test {

struct KfdRoot : ::testing::Test {
  TempDir tmp;
  std::string root = tmp / "root";
  Inventory inventory;
  void copy(const std::string& host) { copy_tree(fixture_host(host), root); }
  // The copy's topology as `topo --no-libs` reads it.
  Topology read() {
    HostOptions o;
    o.root = root;
    o.load_libraries = false;
    HostRoot host(o);
    inventory = probe_root(root);
    return read_topology(host, inventory);
  }
  // A file under the copy's KFD topology nodes, e.g. "2/io_links/0/weight".
  std::string kfd(const std::string& rel) const {
    return root + "/sys/class/kfd/kfd/topology/nodes/" + rel;
  }
};

}  // namespace anygpu::test
