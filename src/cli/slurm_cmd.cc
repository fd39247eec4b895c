// `anygpu slurm gres`: gres.conf lines for the discovered devices of every vendor.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cluster/gres.h"
#include "host/confined_writer.h"
#include "topo/topology.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct GresFlags {
  std::string output;
};

int run_gres(const GlobalOptions& g, const GresFlags& f) {
  auto opts = g.host_options();
  if (!opts) return fail(opts.error());
  HostRoot host(*opts);
  auto inv = discover(g, host);
  auto core_map = read_core_map(host);
  std::string note;
  if (!core_map)
    note = "Cores= left out: CPU topology unreadable (" + core_map.error().message + ")";
  auto lines = gres_lines(inv, core_map ? &*core_map : nullptr);
  if (lines.empty()) return fail(host_error("no accelerator with a device node found"));
  auto flags_note = gres_flags_note(lines);
  // Links= from the link matrix (`anygpu topo`); a damaged link is left out with a warning.
  auto topology = read_topology(host, inv);
  report_warnings(g, topology.warnings);
  auto links_note = add_gres_links(lines, topology);
  // A simulated host's nodes live beneath its root: File= names them there, as slurmd on
  // this machine would open them (the same rule as CDI hostPath).
  if (!host.is_real_root()) {
    auto prefix = host.outside("/");
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    for (auto& l : lines) {
      if (!l.file.empty()) l.file = prefix + l.file;
      for (auto& f : l.files) f = prefix + f;
    }
  }
  // Slurm's NodeName is the short host name (`hostname -s`).
  auto hostname = inv.host.hostname.value_or("localhost");
  hostname = hostname.substr(0, hostname.find('.'));
  if (g.json) {
    nlohmann::ordered_json out = {{"schema", "anygpu.gres/v1"}, {"node", hostname}};
    auto& arr = out["lines"] = nlohmann::ordered_json::array();
    for (const auto& l : lines) {
      nlohmann::ordered_json j = {{"name", "gpu"}, {"type", l.type}};
      // A MIG instance is several files (MultipleFiles=); every other line is one.
      if (l.files.empty())
        j["file"] = l.file;
      else
        j["files"] = l.files;
      j["vendor"] = l.device->vendor;
      j["pci_bus_id"] = l.device->pci.address.str();
      if (l.partition) j["partition"] = l.partition->id;
      if (l.cores) j["cores"] = *l.cores;
      if (!l.links.empty()) j["links"] = l.links;
      if (!l.flags.empty()) j["flags"] = l.flags;
      arr.push_back(j);
    }
    if (!note.empty()) out["note"] = note;
    if (!flags_note.empty()) out["flags_note"] = flags_note;
    if (!links_note.empty()) out["links_note"] = links_note;
    print_json(g, out);
    return kExitOk;
  }
  auto text = gres_conf(lines, hostname, {note, flags_note, links_note});
  if (f.output.empty() || f.output == "-") {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  auto written = write_named_file(f.output, text, 0644);
  if (!written) return fail(written.error());
  if (!g.quiet) std::fprintf(stderr, "anygpu: wrote %s\n", f.output.c_str());
  return kExitOk;
}

}  // namespace

Command slurm_command() {
  return {"slurm", "Slurm integration: gres.conf for every vendor", [](CLI::App& app) {
            auto f = std::make_shared<GresFlags>();
            app.require_subcommand(1);
            auto* gres = app.add_subcommand("gres",
                                            "print gres.conf lines (Name=gpu Type= File= "
                                            "Cores=) for the discovered devices");
            gres->fallthrough();
            gres->add_option("--output", f->output, "write gres.conf atomically to FILE")
                ->type_name("FILE");
            return [f](const GlobalOptions& g) { return run_gres(g, *f); };
          }};
}

}  // namespace anygpu::cli
