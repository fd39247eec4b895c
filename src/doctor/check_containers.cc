// Containers: a vendor with devices but no way into containers (NVIDIA Container Toolkit, or a
// CDI spec of the vendor's kind), CDI specs naming device nodes that no longer exist (a stale
// spec makes `podman run --device nvidia.com/gpu=all` fail for every container), specs of a
// vendor's kind that lack nodes its devices need now (container_edits(), what `cdi generate`
// and `run --container` hand a container), and two specs defining the same device names
// (runtimes refuse such a name, or take it from the higher-priority directory).
#include <set>

#include "cdi/cdi.h"
#include "cdi/cdi_defects.h"
#include "cdi/cdi_resolve.h"
#include "container/container_edits.h"
#include "doctor/checks.h"
#include "doctor/host_paths.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu {

namespace {

bool any_exists(const HostRoot& host, std::span<const std::string_view> paths) {
  for (auto p : paths)
    if (host.exists(p)) return true;
  return false;
}

// A spec of the vendor's kind that lacks a node the vendor's devices need now (a driver update
// added /dev/nvidia-uvm, a GPU was added): containers asking for "all" miss it.
void check_outdated(const DoctorContext& ctx, const std::string& vendor,
                    const std::vector<CdiSpec>& specs, std::vector<Finding>& out) {
  const auto* v = Registry::builtin().vendor(vendor);
  if (!v || v->cdi_kind.empty()) return;
  auto edits = container_edits(ctx.host, vendor, ctx.inventory.of_vendor(vendor));
  if (!edits) return;
  auto needed = edits->merged().device_nodes;
  for (const auto& s : specs) {
    if (s.kind != v->cdi_kind) continue;
    std::set<std::string> has(s.common_device_paths.begin(), s.common_device_paths.end());
    for (const auto& d : s.devices) has.insert(d.device_paths.begin(), d.device_paths.end());
    std::vector<std::string> missing;
    for (const auto& n : needed)
      if (!has.count(n.path)) missing.push_back(n.path);
    if (missing.empty()) continue;
    out.push_back(
        {"containers.cdi-outdated", Severity::warning,
         cat({s.file, ": lacks ", std::to_string(missing.size()), " device node(s) the ", vendor,
              " devices need"}),
         cat({"The CDI spec ", s.file, " (kind ", s.kind, ") names no device giving:\n  ",
              join(missing, "\n  "),
              "\nThe spec was made before a driver update or a hardware change; containers "
              "asking for these devices by name miss what they need."}),
         cdi_regenerate(s.kind, s.file)});
  }
}

// anygpu's own spec for each vendor of the host: one file per vendor, the same path
// host-init writes (cdi_spec_path()).
std::string generate_ours(const std::set<std::string>& vendors) {
  std::vector<std::string> commands;
  for (const auto& v : vendors)
    if (const auto* reg = Registry::builtin().vendor(v); reg && !reg->cdi_kind.empty())
      commands.push_back(cat({"sudo ", cdi_generate_command(v, cdi_spec_path(v))}));
  return join(commands, "; ");
}

void check_unreadable(const std::vector<Error>& errors, const std::set<std::string>& vendors,
                      std::vector<Finding>& out) {
  auto ours = generate_ours(vendors);
  for (const auto& e : errors)
    out.push_back(
        {"containers.cdi-unreadable", Severity::error, "a CDI spec cannot be read",
         cat({e.message,
              "\nRuntimes skip a spec they cannot load: none of its devices can be asked for "
              "by name. `anygpu run --container` passes device nodes explicitly while any "
              "spec is unreadable."}),
         ours.empty() ? std::string("fix or remove the file")
                      : cat({"fix or remove the file; anygpu's own spec: ", ours})});
}

// Stale specs: device nodes that do not exist (any more).
void check_stale(const DoctorContext& ctx, const std::vector<CdiSpec>& specs,
                 std::vector<Finding>& out) {
  CdiSpecJudge judge(ctx.host, {});  // nodes only: driver files are check_container_driver's
  for (const auto& s : specs) {
    auto gone = judge.defects(s).gone_nodes;
    if (gone.empty()) continue;
    out.push_back(
        {"containers.cdi-stale", Severity::error,
         cat({s.file, ": names ", std::to_string(gone.size()),
              " device node(s) that do not exist"}),
         cat({"The CDI spec ", s.file, " (kind ", s.kind, ") refers to:\n  ", join(gone, "\n  "),
              "\nA container asking for these devices fails to start; the spec was "
              "made before a driver update, a reboot or a hardware change."}),
         cdi_regenerate(s.kind, s.file)});
  }
}

std::string qualified_names(const CdiClash& c) {
  constexpr size_t kShown = 8;
  std::vector<std::string> shown;
  for (size_t i = 0; i < c.names.size() && i < kShown; ++i)
    shown.push_back(cat({c.kind, "=", c.names[i]}));
  auto text = join(shown, ", ");
  if (c.names.size() > kShown)
    text += cat({" and ", std::to_string(c.names.size() - kShown), " more"});
  return text;
}

// Of two specs in one directory, the one to remove: anygpu's own when the other is not (a
// vendor's own spec is kept, as host-init keeps it), else the one read second.
const CdiSpec& to_remove(const CdiClash& c) {
  auto ours = [&](const CdiSpec& s) {
    const auto* v = vendor_of_cdi_kind(s.kind);
    return v && s.file == cdi_spec_path(v->id);
  };
  if (ours(*c.first) && !ours(*c.second)) return *c.first;
  return *c.second;
}

// Two specs defining the same device names: runtimes refuse such a name when both are in one
// directory, and take it from /var/run/cdi when one is there (cdi/cdi_resolve.h).
void check_clashes(const std::vector<CdiSpec>& specs, std::vector<Finding>& out) {
  CdiNameTable table(specs);
  for (const auto& c : table.clashes()) {
    auto count = cat({std::to_string(c.names.size()), " ", c.kind, " device name(s)"});
    if (c.conflict) {
      const auto& gone = to_remove(c);
      const auto& kept = &gone == c.first ? *c.second : *c.first;
      out.push_back(
          {"containers.cdi-duplicate", Severity::error,
           cat({c.first->file, " and ", c.second->file, " both define ", count}),
           cat({"Both specs are in one directory and define ", qualified_names(c),
                ". Container runtimes refuse a name that two specs of one directory define "
                "(\"unresolvable CDI devices\"): a container asking for one of them does not "
                "start."}),
           cat({"keep one: sudo rm -- ", gone.file, "   (", kept.file, " stays)"})});
      continue;
    }
    out.push_back(
        {"containers.cdi-shadowed", Severity::warning,
         cat({c.second->file, " overrides ", count, " of ", c.first->file}),
         cat({"Both specs define ", qualified_names(c), ". Runtimes take these names from ",
              c.second->file, " (", kCdiSpecDirs[1], " wins over ", kCdiSpecDirs[0],
              "): ", c.first->file, "'s definitions are never used."}),
         cat({"remove the one not in use: sudo rm -- ", c.first->file})});
  }
}

// A vendor with devices and no way into containers: no CDI spec of its kind and no toolkit.
void check_missing(const DoctorContext& ctx, const std::string& vendor,
                   const std::vector<CdiSpec>& specs, std::vector<Finding>& out) {
  const auto* v = Registry::builtin().vendor(vendor);
  if (!v || v->cdi_kind.empty()) return;
  for (const auto& s : specs)
    if (s.kind == v->cdi_kind) return;
  // Containers are optional: without an engine installed this is only worth knowing.
  bool engine = any_exists(ctx.host, doctor_paths::kContainerEngines);
  auto sev = engine ? Severity::warning : Severity::info;
  auto ours = cat({"sudo ", cdi_generate_command(vendor, cdi_spec_path(vendor))});
  // The vendor's toolkit injects the devices without a spec.
  const auto& tk = v->container.toolkit;
  if (!tk.name.empty() && any_exists(ctx.host, tk.files)) return;
  if (!tk.cdi_generate.empty()) {
    std::vector<std::string> files(tk.files.begin(), tk.files.end());
    out.push_back(
        {"containers.toolkit-missing", sev,
         cat({tk.name, " not installed and no CDI spec for ", v->cdi_kind}),
         cat({"None of ", join(files, ", "), " exists, and ", kCdiSpecDirs[0], ", ",
              kCdiSpecDirs[1], " hold no ", v->cdi_kind,
              " spec: containers cannot get the devices (--device ", v->cdi_kind, "=all fails)."}),
         cat({tk.hint, "; or, for CDI without it: ", ours})});
    return;
  }
  out.push_back({"containers.cdi-missing", sev, cat({"no CDI spec for ", v->cdi_kind}),
                 cat({"This host has ", std::string(v->name), " devices, but ", kCdiSpecDirs[0],
                      " and ", kCdiSpecDirs[1], " hold no spec of kind ", v->cdi_kind,
                      ": Podman, Docker ≥ 25, containerd and CRI-O cannot pass them by name "
                      "(--device ",
                      v->cdi_kind, "=all)."}),
                 ours});
}

}  // namespace

std::string cdi_regenerate(std::string_view kind, const std::string& file) {
  const auto* v = vendor_of_cdi_kind(kind);
  if (!v)
    return cat({"rewrite ", file, " with the tool that wrote it (", kind,
                " is no kind of anygpu's registry), or remove it"});
  // anygpu writes one file per vendor: a spec elsewhere is replaced by that file, not
  // rewritten where it is (two files would define the same names).
  auto ours = cdi_spec_path(v->id);
  auto fix = cat({"sudo ", cdi_generate_command(v->id, ours)});
  if (file != ours) fix += cat({" && sudo rm -- ", file});
  if (v->container.toolkit.cdi_generate.empty()) return fix;
  return cat({fix, "   (or, to keep the vendor tool's own spec: sudo ",
              v->container.toolkit.cdi_generate, file, ")"});
}

std::vector<Finding> check_containers(const DoctorContext& ctx) {
  std::vector<Finding> out;
  std::set<std::string> vendors;
  for (const auto& d : ctx.inventory.devices)
    if (d.bound()) vendors.insert(d.vendor);
  // scan_cdi_specs, not read_cdi_specs: one broken file must not hide the others.
  auto scan = scan_cdi_specs(ctx.host);
  check_unreadable(scan.errors, vendors, out);
  check_stale(ctx, scan.specs, out);
  check_clashes(scan.specs, out);
  for (const auto& vendor : vendors) check_outdated(ctx, vendor, scan.specs, out);
  for (const auto& vendor : vendors) check_missing(ctx, vendor, scan.specs, out);
  return out;
}

}  // namespace anygpu
