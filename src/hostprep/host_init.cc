#include "hostprep/host_init.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cdi/cdi.h"
#include "host/confined_writer.h"
#include "registry/registry.h"
#include "registry/vendor_names.h"
#include "render/json_text.h"
#include "util/strings.h"
#include "wheel/choose.h"

namespace anygpu {

namespace {

constexpr std::string_view kMarkerPath = "/etc/anygpu/host.json";
// Read by older provisioning scripts that predate host.json: one line, the vendor id.
constexpr std::string_view kLegacyMarkerPath = "/opt/gpu-config/vendor";
constexpr std::string_view kLimitsPath = "/etc/security/limits.d/90-anygpu.conf";

constexpr std::string_view kLimits =
    "# Written by anygpu host-init. Data loaders, NCCL/RCCL and vendor runtimes open many\n"
    "# files per process; 1024 ends in \"Too many open files\" on multi-GPU jobs.\n"
    "*    soft    nofile    65536\n"
    "*    hard    nofile    65536\n";

// Done when the file already holds exactly `content`, read back through the same confined path
// that --apply writes through (a link planted on the way is never "done").
StepState file_state(const Result<ConfinedDir>& root, std::string_view path,
                     const std::string& content) {
  if (!root) return StepState::todo;
  auto have = root->read_file(path, 1 << 20);
  return have && *have == content ? StepState::done : StepState::todo;
}

HostStep toolkit_step(const HostRoot& host, const std::string& vendor) {
  HostStep s{
      "container-toolkit", "container runtime support", "", "", StepState::not_needed, "", ""};
  if (vendor == "none") {
    s.why = "no accelerator: containers need nothing extra";
    return s;
  }
  // Installing packages is the operator's (or configuration management's) job, never a side
  // effect here: the step says where to get the vendor's toolkit.
  const auto* v = Registry::builtin().vendor(vendor);
  if (v && !v->container.toolkit.name.empty()) {
    const auto& t = v->container.toolkit;
    s.what = std::string(t.name);
    s.why = "lets docker/podman/containerd inject the driver libraries and device nodes";
    for (auto f : t.files)
      if (host.exists(f)) {
        s.state = StepState::done;
        s.path = std::string(f);
        return s;
      }
    s.path = std::string(t.files[0]);
    s.state = StepState::manual;
    s.hint = std::string(t.hint);
    return s;
  }
  // No toolkit in the registry (Intel's GPUs need only their /dev/dri nodes): nothing to install.
  s.why = cat({vendor_display_name(vendor),
               " has no container runtime hook to install: the CDI spec below, or --device, "
               "passes its device nodes to Podman >= 4.1, Docker >= 25, containerd and CRI-O"});
  return s;
}

HostStep cdi_step(const HostRoot& host, const Result<ConfinedDir>& root, const Inventory& inv,
                  const std::string& vendor, Diagnostics& diagnostics) {
  HostStep s{"cdi", "CDI spec for the devices", "", "", StepState::not_needed, "", ""};
  const auto* v = Registry::builtin().vendor(vendor);
  if (vendor == "none" || !v || v->cdi_kind.empty()) {
    s.why = vendor == "none" ? "no accelerator" : "the registry has no CDI kind for this vendor";
    return s;
  }
  s.path = cdi_spec_path(vendor);
  s.why = cat({"containers get exactly the selected devices by name (--device ", v->cdi_kind,
               "=0), without --privileged or a vendor hook"});
  // Two specs naming the same devices of one kind make runtimes refuse both: a vendor's own
  // spec (nvidia-ctk cdi generate, amd-ctk cdi generate) wins.
  if (auto specs = read_cdi_specs(host))
    for (const auto& spec : *specs)
      if (spec.kind == v->cdi_kind && !spec.file.ends_with(s.path)) {
        s.state = StepState::done;
        s.why = cat({"the vendor's own CDI spec ", spec.file, " already provides ", v->cdi_kind});
        s.path = spec.file;
        return s;
      }
  auto spec =
      generate_cdi_spec(host, inv, vendor, {.host_view = true, .diagnostics = &diagnostics});
  if (!spec) {
    s.state = StepState::blocked;
    s.hint = cat({"cannot generate the spec yet: ", spec.error().message});
    return s;
  }
  s.content = *spec;
  s.state = file_state(root, s.path, s.content);
  return s;
}

}  // namespace

std::string_view to_string(StepState s) {
  switch (s) {
    case StepState::done:
      return "done";
    case StepState::todo:
      return "to-do";
    case StepState::applied:
      return "applied";
    case StepState::manual:
      return "manual";
    case StepState::blocked:
      return "blocked";
    case StepState::not_needed:
      return "not-needed";
  }
  return "to-do";
}

std::string host_marker_json(const Inventory& inv, const std::string& vendor) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.host/v1";
  j["vendor"] = vendor;
  auto devices = nlohmann::ordered_json::array();
  std::optional<DriverInfo> driver;
  for (const auto* d : inv.of_vendor(vendor)) {
    nlohmann::ordered_json x;
    x["index"] = d->index;
    x["pci_bus_id"] = d->pci.address.str();
    if (d->name) x["name"] = *d->name;
    if (d->arch) x["arch"] = *d->arch;
    if (d->uuid) x["uuid"] = *d->uuid;
    devices.push_back(std::move(x));
    if (!driver && d->driver) driver = d->driver;
  }
  if (driver) {
    j["driver"]["name"] = driver->name;
    if (driver->version) j["driver"]["version"] = *driver->version;
  }
  j["devices"] = std::move(devices);
  return dump_json(j) + "\n";
}

namespace {
Result<ConfinedDir> confined_root(const HostRoot& host) {
  // At the real root nothing lies outside "/"; beneath a staged root no link may leave it.
  return ConfinedDir::open(host.outside("/"),
                           host.is_real_root() ? Confinement::system : Confinement::beneath);
}
}  // namespace

HostPlan plan_host_init(const HostRoot& host, const Inventory& inv) {
  HostPlan plan;
  const auto root = confined_root(host);
  plan.vendor = primary_vendor(inv);
  plan.devices = inv.of_vendor(plan.vendor).size();

  HostStep marker{"marker",
                  "vendor marker",
                  "",
                  std::string(kMarkerPath),
                  StepState::todo,
                  host_marker_json(inv, plan.vendor),
                  ""};
  marker.why =
      "provisioning, images and jobs read the host's vendor, devices and driver without "
      "probing";
  marker.state = file_state(root, marker.path, marker.content);
  plan.steps.push_back(std::move(marker));

  HostStep legacy{"legacy-marker", "legacy vendor file", "", std::string(kLegacyMarkerPath),
                  StepState::todo, plan.vendor + "\n",   ""};
  legacy.why = "older provisioning scripts read the vendor id from this one-line file";
  legacy.state = file_state(root, legacy.path, legacy.content);
  plan.steps.push_back(std::move(legacy));

  plan.steps.push_back(toolkit_step(host, plan.vendor));
  plan.steps.push_back(cdi_step(host, root, inv, plan.vendor, plan.diagnostics));

  HostStep limits{"ulimit",        "open-files limit 65536", "", std::string(kLimitsPath),
                  StepState::todo, std::string(kLimits),     ""};
  limits.why =
      "data loaders and collective libraries exhaust the default 1024 open files "
      "(pam_limits applies it at the next login)";
  limits.state = file_state(root, limits.path, limits.content);
  plan.steps.push_back(std::move(limits));
  return plan;
}

Result<bool> apply_host_init(const HostRoot& host, HostPlan& plan) {
  auto root = confined_root(host);
  if (!root) return root.error();
  for (auto& s : plan.steps) {
    if (s.state != StepState::todo) continue;
    auto w = root->write_file(s.path, s.content);
    if (!w) {
      Error e = w.error();
      // Root denied (a read-only mount, a full disk, an immutable file) is not cured by root.
      if ((e.sys_errno == EACCES || e.sys_errno == EPERM) && ::geteuid() != 0)
        e.message += " (run as root, or with --root DIR for a staged tree)";
      return e;
    }
    s.state = StepState::applied;
  }
  return true;
}

}  // namespace anygpu
