// The driver's user space against its kernel module: libraries whose file names carry another
// driver version than the loaded module (a driver upgraded without a reboot, or a second
// installation; NVML answers "Driver/library version mismatch" and CUDA finds no device), and a
// vendor management library that was present but failed.
#include <map>
#include <set>

#include "container/driver_version.h"
#include "doctor/checks.h"
#include "host/ld_cache.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string file_name(std::string_view path) {
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Where the loader takes a soname from: its cache first, then the standard directories and the
// registry's own ones for the library.
std::optional<std::string> locate(const HostRoot& host, const std::optional<LdCache>& cache,
                                  std::string_view soname, const LibrarySpec& lib) {
  if (cache)
    if (const auto* e = ld_cache_lookup(*cache, soname, kNativeElfMachine, kNativeElf64))
      return e->path;
  std::string_view one[] = {soname};
  return host.find_library(one, lib.dirs);
}

struct VersionedFile {
  std::string soname, real, version;
};

// The vendor's registry libraries (NVML for NVIDIA) as installed, with the driver version
// their real file names carry.
std::vector<VersionedFile> installed_versions(const HostRoot& host,
                                              const std::optional<LdCache>& cache,
                                              const Vendor& vendor) {
  auto shapes = driver_version_shapes(vendor);
  std::vector<VersionedFile> out;
  if (shapes.empty()) return out;
  for (const auto& lib : vendor.libraries)
    for (auto soname : lib.sonames) {
      auto at = locate(host, cache, soname, lib);
      if (!at) continue;
      auto real = host.resolve(*at);
      if (!real) continue;
      auto name = file_name(*real);
      for (const auto& shape : shapes)
        if (auto version = driver_version_in(name, library_stem(soname), shape)) {
          out.push_back({std::string(soname), *real, *version});
          break;
        }
      break;  // the first soname found is the one loaded
    }
  return out;
}

std::optional<LdCache> read_cache(const HostRoot& host) {
  auto bytes = host.read_file(kLdSoCachePath, kMaxLdCacheBytes);
  if (!bytes) return std::nullopt;
  auto cache = parse_ld_cache(*bytes, kLdSoCachePath);
  if (!cache) return std::nullopt;  // check_library_shadowing reports an unreadable cache
  return std::move(*cache);
}

bool failed(LibraryStatus s) {
  return s == LibraryStatus::error || is_worker_verdict(s);
}

}  // namespace

std::vector<Finding> check_driver_userspace(const DoctorContext& ctx) {
  std::vector<Finding> out;
  const auto& reg = Registry::builtin();
  std::map<std::string, std::string> loaded;  // vendor -> module version
  for (const auto& d : ctx.inventory.devices)
    if (d.bound() && d.driver && d.driver->version)
      loaded.try_emplace(d.vendor, *d.driver->version);
  auto cache = read_cache(ctx.host);
  std::set<std::string> mismatched;
  for (const auto& [vendor, module] : loaded) {
    const auto* v = reg.vendor(vendor);
    if (!v) continue;
    std::vector<std::string> stale;
    for (const auto& f : installed_versions(ctx.host, cache, *v))
      if (f.version != module)
        stale.push_back(cat({f.soname, " -> ", f.real, " (", f.version, ")"}));
    if (stale.empty()) continue;
    mismatched.insert(vendor);
    out.push_back(
        {"driver.userspace-mismatch", Severity::error,
         cat({std::string(v->name), ": kernel module ", module,
              ", user-space driver libraries of another version"}),
         cat({"The loaded kernel module is ", module, "; the loader takes ", join(stale, ", "),
              ". The management library refuses to start (\"Driver/library version mismatch\") "
              "and frameworks see no device. A driver upgraded without a reboot leaves the old "
              "module running."}),
         cat({"reboot (or unload and reload the ",
              std::string(v->drivers.empty() ? "" : v->drivers.front()),
              " module) if the libraries are the driver you want; otherwise reinstall the "
              "user-space package of version ",
              module})});
  }
  for (const auto& lib : ctx.inventory.libraries) {
    if (!failed(lib.status) || mismatched.count(lib.vendor) ||
        ctx.inventory.of_vendor(lib.vendor).empty())
      continue;
    const auto* v = reg.vendor(lib.vendor);
    bool required = false;
    if (v)
      for (const auto& spec : v->libraries) required |= spec.api == lib.api && spec.required;
    auto who = v ? std::string(v->name) : lib.vendor;
    out.push_back({"driver.library-failed", required ? Severity::error : Severity::warning,
                   cat({who, ": ", lib.api, " library ", std::string(to_string(lib.status))}),
                   cat({lib.path.value_or(lib.api), ": ", lib.message.value_or("no message"),
                        ". Its facts (health, memory, utilization from the library) are "
                        "missing; discovery went on from the kernel's files."}),
                   cat({"anygpu detect -v shows the library's own message; reinstall ", who,
                        "'s user-space driver package",
                        loaded.count(lib.vendor)
                            ? cat({" of the kernel module's version, ", loaded.at(lib.vendor)})
                            : "",
                        " if it persists"})});
  }
  return out;
}

}  // namespace anygpu
