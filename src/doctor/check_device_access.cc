// Device nodes this user cannot open (read+write), and the group that would grant access:
// DRM nodes belong to `render`/`video`, other vendors name theirs in the registry (`access:`).
// Root bypasses permission bits, like the kernel's capability check.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "doctor/checks.h"
#include "doctor/host_paths.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// The group that grants access to a node: the vendor's own (Ascend's HwHiAiUser), else DRM's
// convention (card nodes: video, render nodes and the rest: render).
std::string conventional_group(const Vendor* v, std::string_view node) {
  if (v && !v->access.group.empty()) return std::string(v->access.group);
  if (node.find("/dev/dri/card") == 0) return "video";
  return "render";
}

std::string missing_node_fix(const Vendor* v) {
  if (v && !v->access.fix.empty()) return std::string(v->access.fix);
  return "reload the vendor driver so it creates its device nodes";
}

// gid -> name from the host's /etc/group (the root's, so fixtures can name their groups).
std::map<gid_t, std::string> read_groups(const HostRoot& host) {
  std::map<gid_t, std::string> out;
  auto text = host.read_file(doctor_paths::kEtcGroup);
  if (!text) return out;
  for (auto line : split_lines(*text)) {
    auto fields = split(line, ':');
    if (fields.size() < 3) continue;
    if (auto gid = parse_uint(fields[2]); gid && *gid <= UINT32_MAX)
      out.emplace(static_cast<gid_t>(*gid), std::string(fields[0]));
  }
  return out;
}

struct Denied {
  std::string node;
  mode_t mode = 0;
  uid_t owner = 0;
  gid_t group = 0;
};

bool can_read_write(const DoctorContext& ctx, const struct stat& st) {
  if (ctx.uid == 0) return true;
  mode_t need;
  if (st.st_uid == ctx.uid) {
    need = S_IRUSR | S_IWUSR;
  } else if (std::find(ctx.gids.begin(), ctx.gids.end(), st.st_gid) != ctx.gids.end()) {
    need = S_IRGRP | S_IWGRP;
  } else {
    need = S_IROTH | S_IWOTH;
  }
  return (st.st_mode & need) == need;
}

std::string octal(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

}  // namespace

std::vector<Finding> check_device_access(const DoctorContext& ctx) {
  std::vector<Finding> out;
  const auto& reg = Registry::builtin();
  std::map<std::string, std::vector<std::string>> nodes;  // vendor -> nodes to check
  std::set<std::string> usable_vendors;
  for (const auto& d : ctx.inventory.devices) {
    if (!d.bound()) continue;
    usable_vendors.insert(d.vendor);
    for (const auto& n : d.device_nodes) nodes[d.vendor].push_back(n);
  }
  for (const auto& vendor : usable_vendors) {
    const auto* v = reg.vendor(vendor);
    if (v)
      for (auto n : v->shared_nodes)
        if (ctx.host.exists(n)) nodes[vendor].emplace_back(n);
    for (auto n : v ? v->access.essential : Strings()) {
      if (ctx.host.exists(n)) continue;
      out.push_back({"devices.node-missing", Severity::error, cat({n, " is missing"}),
                     cat({"The ", v ? std::string(v->name) : vendor,
                          " devices are bound to their "
                          "driver, but ",
                          n,
                          " does not exist: the user-space stack cannot "
                          "open the devices (torch.cuda.is_available() is False)."}),
                     missing_node_fix(v)});
    }
  }
  std::map<gid_t, std::string> groups;
  bool groups_read = false;
  for (auto& [vendor, list] : nodes) {
    const auto* v = reg.vendor(vendor);
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    std::map<std::string, std::vector<Denied>> by_group;  // group to join -> nodes
    std::vector<Denied> no_group;                         // no group grants access
    for (const auto& n : list) {
      auto real = ctx.host.resolve(n);
      struct stat st {};
      if (!real || ::stat(ctx.host.outside(*real).c_str(), &st) != 0) continue;
      if (can_read_write(ctx, st)) continue;
      Denied d{n, st.st_mode, st.st_uid, st.st_gid};
      bool group_grants = (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
      if (!group_grants) {
        no_group.push_back(d);
        continue;
      }
      if (!groups_read) groups = read_groups(ctx.host), groups_read = true;
      auto it = groups.find(st.st_gid);
      std::string name =
          it != groups.end() && st.st_gid != 0 ? it->second : conventional_group(v, n);
      by_group[name].push_back(d);
    }
    auto describe = [&](const std::vector<Denied>& ds) {
      std::vector<std::string> parts;
      for (const auto& d : ds)
        parts.push_back(cat({d.node, " (", octal(d.mode), " uid ", std::to_string(d.owner), " gid ",
                             std::to_string(d.group), ")"}));
      return join(parts, ", ");
    };
    for (const auto& [group, ds] : by_group)
      out.push_back(
          {"devices.no-access", Severity::error,
           cat({std::to_string(ds.size()), " ", vendor,
                " device node(s) not accessible to this user (uid ", std::to_string(ctx.uid), ")"}),
           cat({describe(ds), ": read and write are granted to the group ", group,
                ", which this user is not in; frameworks see no device."}),
           cat({"sudo usermod -aG ", group, " $USER   # then log out and in (or: newgrp ", group,
                ")"})});
    if (!no_group.empty())
      out.push_back(
          {"devices.no-access", Severity::error,
           cat({std::to_string(no_group.size()), " ", vendor,
                " device node(s) not accessible to this user (uid ", std::to_string(ctx.uid), ")"}),
           cat({describe(no_group), ": neither the group nor others may read and write them."}),
           cat({"give the nodes a group, e.g. a udev rule: SUBSYSTEM==\"drm\", "
                "KERNEL==\"renderD*\", GROUP=\"",
                conventional_group(v, ""),
                "\", MODE=\"0660\" (then sudo udevadm trigger) and sudo usermod -aG ",
                conventional_group(v, ""), " $USER"})});
  }
  return out;
}

}  // namespace anygpu
