// `anygpu topo`: which devices are linked, their PCIe distance classes and the nearest RDMA NIC.
#include <cstdio>

#include "cli/command.h"
#include "probe/probe.h"
#include "render/json_text.h"
#include "topo/topology_output.h"

namespace anygpu::cli {

Command topo_command() {
  return {"topo", "links between devices, PCIe distance classes and the nearest RDMA NIC",
          [](CLI::App&) {
            return [](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inv = probe(host);
              auto topology = read_topology(host, inv);
              std::vector<std::string> warnings = inv.warnings;
              warnings.insert(warnings.end(), topology.warnings.begin(), topology.warnings.end());
              if (g.json) {
                print(dump_json(topology_to_json(topology, warnings)));
                return kExitOk;
              }
              print_text(topology_to_text(topology));
              if (!g.quiet)
                for (const auto& w : warnings)
                  std::fprintf(stderr, "anygpu: warning: %s\n", w.c_str());
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
