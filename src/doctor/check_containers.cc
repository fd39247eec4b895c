// Containers: a vendor with devices but no way into containers (NVIDIA Container Toolkit, or a
// CDI spec of the vendor's kind), CDI specs naming device nodes that no longer exist (a stale
// spec makes `podman run --device nvidia.com/gpu=all` fail for every container), and specs of a
// vendor's kind that lack nodes its devices need now (container_edits(), what `cdi generate`
// and `run --container` hand a container).
#include <set>

#include "cdi/cdi.h"
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

// A spec's host path as a path beneath the root: specs generated for a simulated host carry
// the root as a prefix.
bool node_exists(const HostRoot& host, const std::string& path) {
  if (host.exists(path)) return true;
  const auto& root = host.options().root;
  if (!host.is_real_root() && path.compare(0, root.size(), root) == 0)
    return host.exists(path.substr(root.size()));
  return false;
}

// A stale spec is rewritten by whoever wrote its kind: the vendor's toolkit when it writes
// CDI specs itself (nvidia-ctk), else anygpu.
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

}  // namespace

const Vendor* vendor_of_cdi_kind(std::string_view kind) {
  for (const auto& v : Registry::builtin().vendors())
    if (!kind.empty() && v.cdi_kind == kind) return &v;
  return nullptr;
}

std::string cdi_regenerate(std::string_view kind, const std::string& file) {
  const auto* v = vendor_of_cdi_kind(kind);
  auto ours = cat({"sudo anygpu cdi generate --output ", file});
  if (!v || v->container.toolkit.cdi_generate.empty()) return ours;
  return cat({ours, "   (or ", v->container.toolkit.cdi_generate, file, " for its own spec)"});
}

std::vector<Finding> check_containers(const DoctorContext& ctx) {
  std::vector<Finding> out;
  const auto& reg = Registry::builtin();
  // scan_cdi_specs, not read_cdi_specs: one broken file must not hide the others.
  auto scan = scan_cdi_specs(ctx.host);
  auto& specs = scan.specs;
  for (const auto& e : scan.errors)
    out.push_back(
        {"containers.cdi-unreadable", Severity::error, "a CDI spec cannot be read",
         cat({e.message, "\nContainer engines refuse every CDI device while a spec is broken."}),
         "fix or remove the file, or regenerate it: sudo anygpu cdi generate "
         "--output /etc/cdi/anygpu.yaml"});
  // Stale specs: device nodes that do not exist (any more).
  for (const auto& s : specs) {
    std::vector<std::string> gone;
    auto check = [&](const std::string& who, const std::vector<std::string>& nodes) {
      for (const auto& n : nodes)
        if (!node_exists(ctx.host, n)) gone.push_back(cat({who, ": ", n}));
    };
    check("containerEdits", s.common_device_paths);
    for (const auto& d : s.devices)
      check(cat({s.kind, "=", d.name}), d.host_paths.empty() ? d.device_paths : d.host_paths);
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
  std::set<std::string> vendors;
  for (const auto& d : ctx.inventory.devices)
    if (d.bound()) vendors.insert(d.vendor);
  for (const auto& vendor : vendors) check_outdated(ctx, vendor, specs, out);
  bool engine = any_exists(ctx.host, doctor_paths::kContainerEngines);
  for (const auto& vendor : vendors) {
    const auto* v = reg.vendor(vendor);
    if (!v || v->cdi_kind.empty()) continue;
    bool has_spec = false;
    for (const auto& s : specs) has_spec = has_spec || s.kind == v->cdi_kind;
    if (has_spec) continue;
    // Containers are optional: without an engine installed this is only worth knowing.
    auto sev = engine ? Severity::warning : Severity::info;
    // The vendor's toolkit injects the devices without a spec.
    const auto& tk = v->container.toolkit;
    if (!tk.name.empty() && any_exists(ctx.host, tk.files)) continue;
    if (!tk.cdi_generate.empty()) {
      std::vector<std::string> files(tk.files.begin(), tk.files.end());
      out.push_back(
          {"containers.toolkit-missing", sev,
           cat({tk.name, " not installed and no CDI spec for ", v->cdi_kind}),
           cat({"None of ", join(files, ", "),
                " exists, and /etc/cdi, /var/run/cdi "
                "hold no ",
                v->cdi_kind,
                " spec: containers cannot get the devices "
                "(--device ",
                v->cdi_kind, "=all fails)."}),
           cat({tk.hint, "; for CDI: sudo ", tk.cdi_generate, "/etc/cdi/", v->id, ".yaml"})});
      continue;
    }
    out.push_back({"containers.cdi-missing", sev, cat({"no CDI spec for ", v->cdi_kind}),
                   cat({"This host has ", std::string(v->name),
                        " devices, but /etc/cdi and "
                        "/var/run/cdi hold no spec of kind ",
                        v->cdi_kind,
                        ": Podman, Docker ≥ 25, containerd and CRI-O cannot pass them by "
                        "name (--device ",
                        v->cdi_kind, "=all)."}),
                   "sudo anygpu cdi generate --output /etc/cdi/anygpu.yaml"});
  }
  return out;
}

}  // namespace anygpu
