#include "container/driver_source.h"

#include <unistd.h>

#include <algorithm>
#include <climits>

#include "container/driver_files.h"
#include "host/paths.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string this_binary() {
  char buf[PATH_MAX];
  auto n = ::readlink(std::string(paths::kSelfExe).c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

// Read-only, and no device files or set-id programs through a driver mount; what is not a
// program (firmware, sockets, configuration) is not executable either.
std::vector<std::string> mount_options(DriverFileKind kind) {
  if (kind == DriverFileKind::library || kind == DriverFileKind::tool)
    return {"ro", "nosuid", "nodev"};
  return {"ro", "nosuid", "nodev", "noexec"};
}

}  // namespace

bool is_anygpu_hook(const HookEdit& hook) {
  return hook.args.size() >= std::size(kAnygpuHookArgs) &&
         std::equal(std::begin(kAnygpuHookArgs), std::end(kAnygpuHookArgs), hook.args.begin());
}

void DriverFilesSource::add(const EditRequest& r, SelectionEdits& out) const {
  if (r.vendor.container.driver_files.empty()) return;
  DriverFilesOptions files;
  files.driver_root = options_.driver_root;
  // The bound kernel module's version ({driver_version} in the registry's patterns).
  for (const auto& de : out.devices)
    if (de.device->driver && de.device->driver->version) {
      files.driver_version = de.device->driver->version;
      break;
    }
  auto found = resolve_driver_files(r.host, r.vendor, files);
  for (auto& w : found.warnings) out.notes.push_back(cat({"warning: ", w}));
  auto prefix = host_path_prefix(r.host);
  for (const auto& m : found.mounts)
    out.common.add_mount({prefix + m.host_path, m.container_path, mount_options(m.kind)});
  for (auto& f : found.ld_folders) out.common.add_library_folder(f);
  if (found.mounts.empty() && found.ld_folders.empty()) return;
  auto path = options_.hook_path.empty() ? this_binary() : options_.hook_path;
  if (path.empty()) {
    out.notes.push_back("warning: this binary's path is unknown: no CDI hooks");
    return;
  }
  auto args = [](std::string_view verb) {
    std::vector<std::string> a(std::begin(kAnygpuHookArgs), std::end(kAnygpuHookArgs));
    a.emplace_back(verb);
    return a;
  };
  if (!found.ld_folders.empty()) {
    auto a = args("update-ldcache");
    for (const auto& f : found.ld_folders) a.insert(a.end(), {"--folder", f});
    out.common.add_hook({"createContainer", path, std::move(a), {}});
  }
  out.common.add_hook({"createContainer", path, args("create-dev-char-links"), {}});
}

}  // namespace anygpu
