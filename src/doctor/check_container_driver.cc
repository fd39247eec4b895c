// The driver in containers: nodes without their /dev/char/MAJOR:MINOR link (runc and systemd
// resolve device cgroup rules through them: a container then loses the device after a
// `systemctl daemon-reload`, and NVML reports "Unknown Error"), device groups a rootless
// container drops without `--group-add keep-groups`, and CDI specs whose mounted driver files
// no longer match the host: driver libraries of another version than the loaded kernel module
// (the vendor's registry `{driver_version}` library patterns say which carry it), or files that
// are gone (driver upgraded, spec stale).
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <map>
#include <set>

#include "cdi/cdi.h"
#include "cdi/cdi_defects.h"
#include "doctor/checks.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu {

namespace {

struct Node {
  std::string vendor, path;
  struct stat st {};
};

std::vector<Node> vendor_nodes(const DoctorContext& ctx) {
  std::vector<Node> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& vendor, const std::string& p) {
    if (!seen.insert(p).second) return;
    Node n{vendor, p, {}};
    auto real = ctx.host.resolve(p);
    if (!real || ::stat(ctx.host.outside(*real).c_str(), &n.st) != 0 || !S_ISCHR(n.st.st_mode))
      return;
    out.push_back(n);
  };
  for (const auto& d : ctx.inventory.devices) {
    if (d.status == DeviceStatus::driver_missing) continue;
    for (const auto& p : d.device_nodes) add(d.vendor, p);
    if (const auto* v = Registry::builtin().vendor(d.vendor))
      for (auto p : v->shared_nodes) add(d.vendor, std::string(p));
  }
  return out;
}

std::string dev_char(const struct stat& st) {
  return cat(
      {"/dev/char/", std::to_string(major(st.st_rdev)), ":", std::to_string(minor(st.st_rdev))});
}

}  // namespace

std::vector<Finding> check_container_driver(const DoctorContext& ctx) {
  std::vector<Finding> out;
  auto nodes = vendor_nodes(ctx);

  std::vector<std::string> unlinked, fix;
  for (const auto& n : nodes) {
    auto link = dev_char(n.st);
    if (ctx.host.exists(link)) continue;
    unlinked.push_back(cat({n.path, " (", link.substr(10), ")"}));
    fix.push_back(cat({"sudo ln -s ..", n.path.substr(4), " ", link}));
  }
  if (!unlinked.empty())
    out.push_back(
        {"containers.dev-char-missing", Severity::warning,
         cat({std::to_string(unlinked.size()), " device node(s) without a /dev/char link"}),
         cat({join(unlinked, ", "),
              ": container runtimes with the systemd cgroup driver resolve device "
              "rules through /dev/char/MAJOR:MINOR; without the link a container "
              "loses the device after `systemctl daemon-reload` (NVML: \"Failed to "
              "initialize NVML: Unknown Error\")."}),
         cat({join(fix, "; "),
              "   (NVIDIA: sudo nvidia-ctk system create-dev-char-symlinks "
              "--create-all; make it permanent with a udev rule)"})});

  if (ctx.uid != 0) {
    std::map<gid_t, std::vector<std::string>> by_group;  // nodes reachable only via a group
    for (const auto& n : nodes) {
      bool others = (n.st.st_mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
      bool member = std::find(ctx.gids.begin(), ctx.gids.end(), n.st.st_gid) != ctx.gids.end();
      if (!others && member && n.st.st_uid != ctx.uid) by_group[n.st.st_gid].push_back(n.path);
    }
    for (const auto& [gid, paths] : by_group)
      out.push_back(
          {"containers.rootless-groups", Severity::warning,
           cat({"rootless containers lose group ", std::to_string(gid), " (", paths.front(),
                paths.size() > 1 ? " …" : "", ")"}),
           cat({join(paths, ", "), " are usable through group ", std::to_string(gid),
                " only. Rootless Podman starts the container without the user's supplementary "
                "groups, so it cannot open them."}),
           "podman run --group-add keep-groups …   (crun; anygpu run: --engine-arg "
           "--group-add=keep-groups)"});
  }

  // Stale driver mounts: files gone since the spec was written, and version-carrying driver
  // libraries of another version than the loaded module (its user space must match it). The
  // judgement is cdi/cdi_defects.h's, which `run --container` applies too.
  CdiSpecJudge judge(ctx.host, loaded_driver_of(ctx.inventory.devices));
  for (const auto& s : scan_cdi_specs(ctx.host).specs) {
    auto fix = cdi_regenerate(s.kind, s.file);
    auto defects = judge.defects(s);
    const auto* owner = vendor_of_cdi_kind(s.kind);
    for (const auto& v : defects.stale_driver_versions)
      out.push_back({"containers.cdi-driver-stale", Severity::error,
                     cat({s.file, ": mounts driver ", v, " files; the loaded module is ",
                          *defects.loaded_driver}),
                     cat({"The spec was written for driver ", v,
                          " and the driver was upgraded since: containers get libraries "
                          "that do not match the kernel module (the ",
                          owner ? owner->display_name : std::string_view("vendor's"),
                          " user space refuses to run on it) or fail to start when the old files "
                          "are gone."}),
                     fix});
    const auto& gone = defects.gone_mounts;
    if (!gone.empty())
      out.push_back(
          {"containers.cdi-mounts-gone", Severity::error,
           cat({s.file, ": mounts ", std::to_string(gone.size()),
                " host file(s) that no longer exist"}),
           cat({"The CDI spec ", s.file, " (kind ", s.kind, ") mounts:\n  ", join(gone, "\n  "),
                "\nA runtime refuses to start a container whose mount source is "
                "missing; the spec predates a driver update."}),
           fix});
  }
  return out;
}

}  // namespace anygpu
