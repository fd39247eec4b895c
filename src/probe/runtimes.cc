#include "probe/runtimes.h"

#include <set>

#include "probe/sysfs_parse.h"
#include "registry/wheel_data.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// "6.2.4-120" -> "6.2.4": a trailing build number is not part of the version users know.
std::string strip_build(std::string v) {
  auto dash = v.rfind('-');
  if (dash != std::string::npos && dash + 1 < v.size() && parse_uint(v.substr(dash + 1)))
    v.resize(dash);
  return v;
}

std::optional<std::string> read_runtime(const ProbeContext& ctx, const RuntimeSpec& spec) {
  if (!spec.path.empty()) {
    auto text = ctx.host.read_file(spec.path, kSmallFileBytes);
    if (!text) return std::nullopt;
    auto v = spec.key.empty() ? std::optional<std::string>(std::string(first_line(*text)))
                              : key_value(*text, spec.key);
    if (!v || v->empty() || v->size() > 64 || !is_printable_text(*v)) {
      ctx.warn(spec.path, "no version found");
      return std::nullopt;
    }
    return strip_build(*v);
  }
  if (!spec.library.empty()) {
    std::string_view soname[] = {spec.library};
    auto path = ctx.host.find_library(soname, {});
    if (!path) return std::nullopt;
    auto real = ctx.host.resolve(*path);
    if (!real) return std::nullopt;
    return version_from_library_file(real->substr(real->rfind('/') + 1), spec.library);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> cuda_version_for_driver(std::string_view driver_version) {
  return wheel_data().cuda_for_driver(driver_version);
}

std::vector<RuntimeComponent> probe_runtimes(const ProbeContext& ctx,
                                             const std::vector<Device>& devices) {
  std::vector<RuntimeComponent> out;
  std::set<std::pair<std::string_view, std::string_view>> done;
  for (const auto& vendor : ctx.registry.vendors()) {
    for (const auto& spec : vendor.runtimes) {
      if (done.count({vendor.id, spec.component})) continue;  // alternatives: first wins
      std::optional<std::string> version;
      std::string source;
      if (spec.derived) {
        for (const auto& d : devices)
          if (d.vendor == vendor.id && d.driver && d.driver->version) {
            version = cuda_version_for_driver(*d.driver->version);
            source = "driver " + *d.driver->version;
            break;
          }
      } else {
        version = read_runtime(ctx, spec);
        source = std::string(spec.path.empty() ? spec.library : spec.path);
      }
      if (!version) continue;
      done.insert({vendor.id, spec.component});
      out.push_back({std::string(vendor.id), std::string(spec.component), *version, source});
    }
  }
  return out;
}

}  // namespace anygpu
