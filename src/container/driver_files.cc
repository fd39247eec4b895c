// Resolving a vendor's driver user space on the host. Libraries come from the loader's own
// view first (ld.so.cache, for this build's ELF machine), then the vendor's directories; each
// is mounted as its real file plus its soname link, so the container's loader finds it under
// the name programs ask for. Every path is read beneath the (driver) root: a link cannot lead
// a mount out of it.
#include "container/driver_files.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>

#include "container/plain_path.h"
#include "host/ld_cache.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// Where management tools live when the vendor names no directory of its own.
constexpr std::string_view kStandardToolDirs[] = {"/usr/bin", "/usr/sbin", "/usr/local/bin", "/bin",
                                                  "/sbin"};

std::string dir_of(std::string_view p) {
  auto slash = p.rfind('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? "/" : std::string(p.substr(0, slash));
}
std::string base_of(std::string_view p) {
  auto slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}
bool beneath(std::string_view path, std::string_view dir) {
  if (dir == "/") return true;
  return path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/';
}
bool glob_match(std::string_view pattern, std::string_view name) {
  return ::fnmatch(std::string(pattern).c_str(), std::string(name).c_str(), FNM_PERIOD) == 0;
}

class Resolver {
 public:
  Resolver(const HostRoot& root, const Vendor& vendor, const DriverFilesOptions& options)
      : root_(root), spec_(vendor.container.driver_files), vendor_(vendor), options_(options) {}

  DriverFiles run() {
    trees();
    libraries();
    tools();
    for (auto p : spec_.firmware) globbed(p, DriverFileKind::firmware);
    for (auto p : spec_.sockets) present(std::string(p), DriverFileKind::socket);
    for (auto p : spec_.config) present(std::string(p), DriverFileKind::config);
    for (auto d : spec_.library_dirs)
      if (under_mounted_dir(std::string(d)) && root_.is_dir(d)) folder(std::string(d));
    // By container path: a parent directory is mounted before anything beneath it.
    DriverFiles out;
    for (auto& [path, m] : mounts_) out.mounts.push_back(std::move(m));
    out.ld_folders = std::move(folders_);
    out.warnings = std::move(warnings_);
    return out;
  }

 private:
  void warn(std::string message) { warnings_.push_back(cat({vendor_.id, ": ", message})); }

  // The host's path for a path beneath the driver root.
  std::string host_path(const std::string& p) const {
    if (options_.driver_root == "/") return p;
    return p == "/" ? options_.driver_root : options_.driver_root + p;
  }

  void add(const std::string& container, const std::string& real, DriverFileKind kind) {
    mounts_.emplace(container, DriverMount{host_path(real), container, kind});
  }
  void folder(const std::string& d) {
    if (std::find(folders_.begin(), folders_.end(), d) == folders_.end()) folders_.push_back(d);
  }
  bool under_mounted_dir(const std::string& p) const {
    return std::any_of(mounted_dirs_.begin(), mounted_dirs_.end(),
                       [&](const std::string& d) { return p == d || beneath(p, d); });
  }

  std::optional<std::string> placeholders(std::string_view pattern) {
    if (pattern.find("{driver_version}") == std::string_view::npos) return std::string(pattern);
    if (!options_.driver_version) {
      warn(cat({"'", pattern, "' needs the driver version, which is unknown: left out"}));
      return std::nullopt;
    }
    return replace_placeholder(pattern, "driver_version", *options_.driver_version);
  }

  // The vendor's `container.mounts` (trees such as /usr/local/Ascend/driver) are mounted by the
  // registry's own source: what lies beneath them is not mounted again, but its library
  // folders still go into the loader cache.
  void trees() {
    for (const auto& m : vendor_.container.mounts) mounted_dirs_.emplace_back(m.path);
  }

  // The directories a library may come from: the loader's standard ones, the vendor's, and
  // the trees mounted whole, each also as resolved beneath the root (/lib -> /usr/lib).
  void allowed_library_dirs() {
    std::vector<std::string> dirs = root_.library_dirs(spec_.library_dirs);
    dirs.insert(dirs.end(), mounted_dirs_.begin(), mounted_dirs_.end());
    for (const auto& d : dirs) {
      allowed_.insert(d);
      if (auto real = root_.resolve(d)) allowed_.insert(*real);
    }
  }
  bool allowed_dir(const std::string& dir) const {
    if (allowed_.count(dir)) return true;
    return std::any_of(mounted_dirs_.begin(), mounted_dirs_.end(),
                       [&](const std::string& d) { return beneath(dir, d); });
  }

  // Why a library outside the standard and the vendor's directories cannot be trusted ("" when
  // it can): the rule CDI specs get (util/file_trust.h), so a directory the host's loader was
  // configured with (GKE's and driver containers' /usr/local/nvidia/lib64) counts as the
  // loader does, and one that others can change never does.
  std::string untrusted(const std::string& link) const {
    auto file = root_.open_checked(link, "driver library");
    if (!file) return file.error().message;
    return file->untrusted;
  }

  // One library found at `link` (the soname path): mounted as its real file and as the link.
  bool library_at(const std::string& link, std::string_view origin) {
    auto real = root_.resolve(link);
    if (!real) {
      warn(cat({origin, " ", link, ": dangling link, left out"}));
      return false;
    }
    if (!allowed_dir(dir_of(link)) || !allowed_dir(dir_of(*real))) {
      auto why = untrusted(link);
      if (!why.empty()) {
        warn(cat({origin, " ", link, " (", *real,
                  "): outside the loader's and the vendor's library directories, in a place others "
                  "can change (",
                  why, "), left out"}));
        return false;
      }
    }
    if (under_mounted_dir(link)) return true;  // in a tree mounted whole already
    add(*real, *real, DriverFileKind::library);
    if (link != *real) add(link, *real, DriverFileKind::library);
    folder(dir_of(link));
    return true;
  }

  std::optional<LdCache> read_cache() {
    auto bytes = root_.read_file(kLdSoCachePath, kMaxLdCacheBytes);
    if (!bytes) return std::nullopt;  // no cache: the vendor directories still count
    auto cache = parse_ld_cache(*bytes, root_.outside(kLdSoCachePath));
    if (!cache) {
      warn(cat({cache.error().message, " (the loader's cache is ignored)"}));
      return std::nullopt;
    }
    return std::move(*cache);
  }

  void libraries() {
    if (spec_.libraries.empty() && spec_.library_patterns.empty()) return;
    allowed_library_dirs();
    std::vector<std::string> patterns;
    for (auto p : spec_.library_patterns)
      if (auto s = placeholders(p)) patterns.push_back(std::move(*s));
    std::set<std::string> found;  // sonames already taken (the loader takes the first entry)
    if (auto cache = read_cache()) {
      for (const auto& e : cache->entries) {
        if (!ld_cache_accepts(e, kNativeElfMachine, kNativeElf64) || found.count(e.name)) continue;
        // Checked before the names: an entry that climbs is never read, whatever it names.
        if (!is_plain_absolute_path(e.path)) {
          warn(cat({"ld.so.cache entry ", e.name, " -> '", e.path,
                    "' is not a plain absolute path, left out"}));
          continue;
        }
        bool named = std::find(spec_.libraries.begin(), spec_.libraries.end(), e.name) !=
                     spec_.libraries.end();
        if (!named && !matches_pattern(e.path, patterns)) continue;
        if (library_at(e.path, "ld.so.cache entry")) found.insert(e.name);
      }
    }
    // The vendor's own directories are often not in the cache (/usr/local/dcmi).
    std::vector<std::string> search;
    for (auto d : spec_.library_dirs) search.emplace_back(d);
    for (const auto& d : root_.library_dirs({})) search.push_back(d);
    for (auto soname : spec_.libraries) {
      if (found.count(std::string(soname))) continue;
      for (const auto& d : search) {
        auto p = cat({d, "/", soname});
        if (!root_.exists(p) && !root_.read_link(p)) continue;
        if (library_at(p, "library")) found.insert(std::string(soname));
        break;
      }
    }
  }

  // Whether the file behind a cache entry is named like one of the patterns (one link hop,
  // which is how drivers install: libcuda.so.1 -> libcuda.so.550.90.07).
  bool matches_pattern(const std::string& path, const std::vector<std::string>& patterns) {
    if (patterns.empty()) return false;
    std::string name = base_of(path);
    if (auto target = root_.read_link(path)) name = base_of(*target);
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const std::string& p) { return glob_match(p, name); });
  }

  void tools() {
    std::vector<std::string> dirs;
    for (auto d : spec_.tool_dirs) dirs.emplace_back(d);
    for (auto d : kStandardToolDirs) dirs.emplace_back(d);
    std::set<std::string> allowed(dirs.begin(), dirs.end());
    for (const auto& d : dirs)
      if (auto real = root_.resolve(d)) allowed.insert(*real);
    for (auto name : spec_.tools)
      for (const auto& d : dirs) {
        auto p = cat({d, "/", name});
        if (!root_.exists(p) && !root_.read_link(p)) continue;
        auto real = root_.resolve(p);
        if (!real) {
          warn(cat({"tool ", p, ": dangling link, left out"}));
        } else if (!allowed.count(dir_of(*real)) && !under_mounted_dir(dir_of(*real))) {
          warn(cat({"tool ", p, " (", *real, "): outside the tool directories, left out"}));
        } else if (!under_mounted_dir(p)) {
          add(p, *real, DriverFileKind::tool);
        }
        break;
      }
  }

  void globbed(std::string_view pattern, DriverFileKind kind) {
    auto path = placeholders(pattern);
    if (!path) return;
    auto dir = dir_of(*path), name = base_of(*path);
    if (name.find_first_of("*?[") == std::string::npos) return present(*path, kind);
    auto entries = root_.list_dir(dir);
    if (!entries) return;
    for (const auto& e : *entries)
      if (glob_match(name, e)) present(cat({dir, "/", e}), kind);
  }

  void present(const std::string& p, DriverFileKind kind) {
    if (!root_.exists(p)) return;
    if (under_mounted_dir(p)) return;
    auto real = root_.resolve(p);
    if (!real) return;
    add(p, *real, kind);
  }

  const HostRoot& root_;
  const DriverFilesSpec& spec_;
  const Vendor& vendor_;
  const DriverFilesOptions& options_;
  std::map<std::string, DriverMount> mounts_;  // by container path
  std::vector<std::string> folders_;
  std::vector<std::string> mounted_dirs_;
  std::set<std::string> allowed_;
  std::vector<std::string> warnings_;
};

}  // namespace

std::string_view driver_file_kind_name(DriverFileKind kind) {
  switch (kind) {
    case DriverFileKind::library:
      return "library";
    case DriverFileKind::tool:
      return "tool";
    case DriverFileKind::firmware:
      return "firmware";
    case DriverFileKind::socket:
      return "socket";
    case DriverFileKind::config:
      return "config";
  }
  return "file";
}

DriverFiles resolve_driver_files(const HostRoot& host, const Vendor& vendor,
                                 const DriverFilesOptions& options) {
  if (vendor.container.driver_files.empty()) return {};
  if (options.driver_root == "/") return Resolver(host, vendor, options).run();
  // The driver's own tree is a root of its own: its absolute links mean paths inside it.
  auto real = host.resolve(options.driver_root);
  if (!real || !host.is_dir(*real)) {
    DriverFiles out;
    out.warnings.push_back(cat({"driver root ", options.driver_root, ": not a directory"}));
    return out;
  }
  HostOptions o = host.options();
  o.root = host.outside(*real);
  o.load_libraries = false;
  HostRoot driver_root(o);
  DriverFilesOptions inner = options;
  inner.driver_root = *real;
  return Resolver(driver_root, vendor, inner).run();
}

}  // namespace anygpu
