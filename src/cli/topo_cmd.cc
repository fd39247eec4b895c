// `anygpu topo`: which devices are linked, their PCIe distance classes and the nearest RDMA NIC.
#include "cli/command.h"
#include "topo/topology_output.h"

namespace anygpu::cli {

Command topo_command() {
  return {"topo", "links between devices, PCIe distance classes and the nearest RDMA NIC",
          [](CLI::App&) {
            return [](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              auto inv = discover(g, host);
              auto topology = read_topology(host, inv);
              report_warnings(g, topology.warnings);  // after discovery's, once each
              if (g.json) {
                print_json(g, topology_to_json(topology, {}));
                return kExitOk;
              }
              print_text(topology_to_text(topology));
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
