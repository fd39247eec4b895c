// `anygpu cdi generate`: a CDI spec for the discovered devices of one vendor (any vendor).
// `anygpu cdi list`: the specs the host has, their kinds and devices, and what is wrong with
// the ones a runtime would reject.
// `anygpu cdi hook update-ldcache|create-dev-char-links`: the createContainer hooks those
// specs name (run by the container runtime, container state on stdin).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

#include "cdi/cdi.h"
#include "cli/command.h"
#include "container/cdi_hooks.h"
#include "host/confined_writer.h"
#include "render/json_text.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

// What a runtime passes a hook is a few hundred bytes; a bundle's config.json some KiB.
constexpr size_t kHookStateBytes = size_t{1} << 20;
constexpr size_t kHookConfigBytes = size_t{16} << 20;

struct CdiFlags {
  std::string vendor;
  std::string output;
  std::string driver_root = "/";
  std::string hook_path;
  std::vector<std::string> folders;  // cdi hook update-ldcache --folder
};

int run_generate(const GlobalOptions& g, const CdiFlags& f) {
  auto opts = g.host_options();
  if (!opts) return fail(opts.error());
  HostRoot host(*opts);
  auto inv = discover(g, host);
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
  if (f.driver_root.empty() || f.driver_root[0] != '/')
    return fail(bad_input(cat({"--driver-root '", f.driver_root, "': not an absolute path"})));
  if (!f.hook_path.empty() && f.hook_path[0] != '/')
    return fail(bad_input(cat({"--hook-path '", f.hook_path, "': not an absolute path"})));
  CdiGenerateOptions options;
  options.driver = {f.driver_root, f.hook_path};
  Diagnostics left_out;
  options.diagnostics = &left_out;
  // A simulated host's nodes live beneath its root: hostPath names them there.
  auto spec = generate_cdi_spec(host, inv, vendor, options);
  report(g, left_out);
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
    // Each spec's marks stay in its own "warnings".
    print_json(g, {{"schema", "anygpu.cdi/v1"}, {"specs", specs}, {"errors", errors}});
  } else {
    if (scan.specs.empty() && scan.errors.empty())
      print_text("No CDI specs in /etc/cdi or /var/run/cdi.");
    for (const auto& s : scan.specs) {
      std::vector<std::string> names;
      for (const auto& d : s.devices) names.push_back(d.name);
      print_text(cat({s.file, ": ", s.kind, " (cdiVersion ", s.cdi_version,
                      "): ", std::to_string(s.devices.size()), " devices: ", join(names, " ")}));
      // Marked: `run --container` will not use a spec like this by name.
      for (const auto& w : cdi_spec_warnings(s)) report(g, Diagnostic::warning(s.file, w));
    }
  }
  for (const auto& e : scan.errors) std::fprintf(stderr, "anygpu: %s\n", e.message.c_str());
  return scan.errors.empty() ? kExitOk : kExitUsage;
}

// `cdi hook …`: run by the container runtime with the container state on stdin.
Result<std::string> hook_container_root() {
  std::string state;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    state.append(buf, n);
    if (state.size() > kHookStateBytes) return bad_input("container state on stdin: too large");
  }
  return oci_container_root(state, [](const std::string& path) -> Result<std::string> {
    HostOptions o;
    HostRoot here(o);
    return here.read_file(path, kHookConfigBytes);
  });
}

int run_hook(const CdiFlags& f, bool ldcache) {
  auto root = hook_container_root();
  if (!root) return fail(root.error());
  if (ldcache) {
    auto ldconfig = find_ldconfig();
    if (!ldconfig) return fail(host_error("no ldconfig in /sbin or /usr/sbin"));
    auto done = update_container_ldcache(*root, f.folders, *ldconfig);
    return done ? kExitOk : fail(done.error());
  }
  auto made = create_dev_char_links(*root);
  return made ? kExitOk : fail(made.error());
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
            gen->add_option("--driver-root", f->driver_root,
                            "where the driver's user space is installed (default /), e.g. "
                            "/run/nvidia/driver; mounted without it in the container")
                ->type_name("DIR");
            gen->add_option("--hook-path", f->hook_path,
                            "the anygpu binary the spec's hooks run (default: this binary)")
                ->type_name("PATH");
            auto* list = app.add_subcommand("list", "the CDI specs found, their kinds and devices");
            list->fallthrough();
            auto* hook = app.add_subcommand(
                "hook", "OCI createContainer hooks named by generated specs (state on stdin)");
            hook->require_subcommand(1);
            auto* ldcache = hook->add_subcommand(
                "update-ldcache", "list FOLDERs in the container's loader cache (ldconfig -r)");
            ldcache->add_option("--folder", f->folders, "a container folder of driver libraries")
                ->type_name("DIR")
                ->required();
            auto* devchar = hook->add_subcommand(
                "create-dev-char-links", "/dev/char/MAJOR:MINOR links for the container's nodes");
            return [f, gen, hook, ldcache, devchar](const GlobalOptions& g) {
              if (gen->parsed()) return run_generate(g, *f);
              if (hook->parsed()) return run_hook(*f, ldcache->parsed() && !devchar->parsed());
              return run_list(g);
            };
          }};
}

}  // namespace anygpu::cli
