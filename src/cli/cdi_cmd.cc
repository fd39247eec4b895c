// `anygpu cdi generate`: a CDI spec for the discovered devices of one vendor (any vendor).
// `anygpu cdi list`: the specs the host has, their kinds and devices, and what is wrong with
// the ones a runtime would reject.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

#include "cdi/cdi.h"
#include "cli/command.h"
#include "probe/probe.h"
#include "render/json_text.h"
#include "host/confined_writer.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct CdiFlags {
  std::string vendor;
  std::string output;
};

int run_generate(const GlobalOptions& g, const CdiFlags& f) {
  auto opts = g.host_options();
  if (!opts) return fail(opts.error());
  HostRoot host(*opts);
  auto inv = probe(host);
  std::string vendor = f.vendor;
  if (vendor.empty()) {
    std::set<std::string> vendors;
    for (const auto& d : inv.devices) vendors.insert(d.vendor);
    if (vendors.empty()) return fail(host_error("no accelerator found; nothing to describe"));
    if (vendors.size() > 1)
      return fail(bad_input(
          cat({"devices of several vendors (", join({vendors.begin(), vendors.end()}, ", "),
               "): choose one with --vendor (one spec file per vendor)"})));
    vendor = *vendors.begin();
  }
  // A simulated host's nodes live beneath its root: hostPath names them there.
  auto spec = generate_cdi_spec(host, inv, vendor);
  if (!spec) return fail(spec.error());
  if (f.output.empty() || f.output == "-") {
    std::fputs(spec->c_str(), stdout);
    return kExitOk;
  }
  // Runtimes watch the spec directories: the file appears whole or not at all.
  auto written = write_named_file(f.output, *spec, 0644);
  if (!written) return fail(written.error());
  if (!g.quiet) std::fprintf(stderr, "anygpu: wrote %s\n", f.output.c_str());
  return kExitOk;
}

nlohmann::ordered_json spec_json(const CdiSpec& s) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : s.devices)
    devices.push_back({{"name", d.name},
                       {"qualified_name", s.kind + "=" + d.name},
                       {"device_nodes", d.device_paths},
                       {"host_paths", d.host_paths}});
  return {{"file", s.file},
          {"cdi_version", s.cdi_version},
          {"minimum_version", s.minimum_version},
          {"kind", s.kind},
          {"devices", devices},
          {"common_device_nodes", s.common_device_paths},
          {"warnings", cdi_spec_warnings(s)}};
}

int run_list(const GlobalOptions& g) {
  auto opts = g.host_options();
  if (!opts) return fail(opts.error());
  HostRoot host(*opts);
  auto scan = scan_cdi_specs(host);
  if (g.json) {
    nlohmann::ordered_json specs = nlohmann::ordered_json::array(),
                           errors = nlohmann::ordered_json::array();
    for (const auto& s : scan.specs) specs.push_back(spec_json(s));
    for (const auto& e : scan.errors) errors.push_back(e.message);
    print(dump_json({{"schema", "anygpu.cdi/v1"}, {"specs", specs}, {"errors", errors}}));
  } else {
    if (scan.specs.empty() && scan.errors.empty())
      print("No CDI specs in /etc/cdi or /var/run/cdi.");
    for (const auto& s : scan.specs) {
      std::vector<std::string> names;
      for (const auto& d : s.devices) names.push_back(d.name);
      print(cat({s.file, ": ", s.kind, " (cdiVersion ", s.cdi_version,
                 "): ", std::to_string(s.devices.size()), " devices: ", join(names, " ")}));
      // Marked: `run --container` will not use a spec like this by name.
      for (const auto& w : cdi_spec_warnings(s)) print(cat({"  warning: ", w}));
    }
  }
  for (const auto& e : scan.errors) std::fprintf(stderr, "anygpu: %s\n", e.message.c_str());
  return scan.errors.empty() ? kExitOk : kExitUsage;
}

}  // namespace

Command cdi_command() {
  return {"cdi", "generate and list Container Device Interface specs", [](CLI::App& app) {
            auto f = std::make_shared<CdiFlags>();
            app.require_subcommand(1);
            auto* gen = app.add_subcommand(
                "generate", "print (or write) a CDI spec for the discovered devices");
            gen->fallthrough();
            gen->add_option("--vendor", f->vendor,
                            "vendor id (default: the only vendor with devices)")
                ->type_name("ID");
            gen->add_option("--output", f->output,
                            "write the spec to FILE atomically (default stdout), e.g. "
                            "/etc/cdi/anygpu-nvidia.yaml")
                ->type_name("FILE");
            auto* list = app.add_subcommand("list", "the CDI specs found, their kinds and devices");
            list->fallthrough();
            return [f, gen](const GlobalOptions& g) {
              if (gen->parsed()) return run_generate(g, *f);
              return run_list(g);
            };
          }};
}

}  // namespace anygpu::cli
