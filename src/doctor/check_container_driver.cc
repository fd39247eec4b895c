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
#include "container/driver_files.h"
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

std::string base_name(std::string_view p) {
  auto slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

bool is_dotted_version(std::string_view v) {
  if (v.empty() || v.front() == '.' || v.back() == '.' || v.find('.') == std::string_view::npos)
    return false;
  return std::all_of(v.begin(), v.end(), [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

// The vendor's libraries whose real file names carry the loaded module's version, as its
// registry `{driver_version}` patterns find them on the host now: "libcuda" with the literal
// around the version (".so.", ""). A spec mounting one of these at another version is stale;
// a library with a version of its own (libnvidia-egl-wayland.so.1.1.13) is not one of them.
struct VersionedLibraries {
  struct Shape {
    std::string before, after;  // around {driver_version} after the pattern's last '*'
  };
  std::vector<Shape> shapes;
  std::set<std::string> stems;
};

VersionedLibraries versioned_libraries(const HostRoot& host, const Vendor& vendor,
                                       const std::string& loaded) {
  constexpr std::string_view kPlaceholder = "{driver_version}";
  VersionedLibraries out;
  for (auto p : vendor.container.driver_files.library_patterns) {
    auto at = p.find(kPlaceholder);
    if (at == std::string_view::npos) continue;
    auto star = p.rfind('*', at);
    auto from = star == std::string_view::npos ? 0 : star + 1;
    out.shapes.push_back(
        {std::string(p.substr(from, at - from)), std::string(p.substr(at + kPlaceholder.size()))});
  }
  if (out.shapes.empty()) return out;
  DriverFilesOptions options;
  options.driver_version = loaded;
  for (const auto& m : resolve_driver_files(host, vendor, options).mounts) {
    if (m.kind != DriverFileKind::library) continue;
    auto name = base_name(m.host_path);
    for (const auto& s : out.shapes)
      if (auto tail = cat({s.before, loaded, s.after}); name.ends_with(tail))
        out.stems.insert(name.substr(0, name.size() - tail.size()));
  }
  return out;
}

// The driver versions ("535.104.05") of the versioned libraries a spec mounts.
std::set<std::string> mounted_versions(const CdiSpec& spec, const VersionedLibraries& libs) {
  std::set<std::string> out;
  auto scan = [&](const ContainerEdits& edits) {
    for (const auto& m : edits.mounts) {
      auto name = base_name(m.host_path);
      for (const auto& shape : libs.shapes)
        for (const auto& stem : libs.stems) {
          auto head = stem + shape.before;
          if (name.size() <= head.size() + shape.after.size() || !name.starts_with(head) ||
              !name.ends_with(shape.after))
            continue;
          auto version = name.substr(head.size(), name.size() - head.size() - shape.after.size());
          if (is_dotted_version(version)) out.insert(version);
        }
    }
  };
  scan(spec.common_edits);
  for (const auto& d : spec.devices) scan(d.edits);
  return out;
}

// A spec's mounted host files that are gone (a driver upgrade removed the old version's).
std::vector<std::string> gone_mounts(const DoctorContext& ctx, const CdiSpec& spec) {
  std::vector<std::string> out;
  const auto& root = ctx.host.options().root;
  auto check = [&](const ContainerEdits& edits) {
    for (const auto& m : edits.mounts) {
      auto p = m.host_path;
      if (!ctx.host.is_real_root() && p.compare(0, root.size(), root) == 0)
        p = p.substr(root.size());
      if (!ctx.host.exists(p)) out.push_back(m.host_path);
    }
  };
  check(spec.common_edits);
  for (const auto& d : spec.devices) check(d.edits);
  return out;
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
  // libraries of another version than the loaded module (its user space must match it).
  auto loaded_version = [&](std::string_view vendor) -> std::optional<std::string> {
    for (const auto& d : ctx.inventory.devices)
      if (d.vendor == vendor && d.driver && d.driver->version) return d.driver->version;
    return std::nullopt;
  };
  std::map<std::string, VersionedLibraries> versioned;  // by vendor id, resolved once
  auto scan = scan_cdi_specs(ctx.host);
  for (const auto& s : scan.specs) {
    const auto* owner = vendor_of_cdi_kind(s.kind);
    auto fix = cdi_regenerate(s.kind, s.file);
    auto loaded = owner ? loaded_version(owner->id) : std::nullopt;
    if (loaded) {
      auto [it, fresh] = versioned.try_emplace(std::string(owner->id));
      if (fresh) it->second = versioned_libraries(ctx.host, *owner, *loaded);
      for (const auto& v : mounted_versions(s, it->second))
        if (v != *loaded)
          out.push_back(
              {"containers.cdi-driver-stale", Severity::error,
               cat({s.file, ": mounts driver ", v, " files; the loaded module is ", *loaded}),
               cat({"The spec was written for driver ", v,
                    " and the driver was upgraded since: containers get libraries "
                    "that do not match the kernel module (the ",
                    owner->display_name,
                    " user space refuses to run on it) or fail to start when the old files "
                    "are gone."}),
               fix});
    }
    auto gone = gone_mounts(ctx, s);
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
