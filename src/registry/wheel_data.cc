#include "registry/wheel_data.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "util/file_trust.h"
#include "util/fork_safety.h"
#include "util/regular_file.h"
#include "util/strings.h"
#include "util/version.h"
#include "util/yaml_reader.h"

namespace anygpu {

namespace {

constexpr std::array<std::string_view, 8> kTopKeys{
    "schema",     "index_url", "cuda_families", "cuda_toolkits",
    "arch_lists", "packages",  "plugins",       "amdgpu_drivers"};
constexpr std::array<std::string_view, 4> kTopRequired{"schema", "index_url", "cuda_families",
                                                       "packages"};
constexpr std::array<std::string_view, 2> kFloorKeys{"cuda", "driver_min"};
constexpr std::array<std::string_view, 3> kAmdgpuKeys{"kmd", "module", "rocm"};
constexpr std::array<std::string_view, 2> kAmdgpuRequired{"kmd", "rocm"};
constexpr std::array<std::string_view, 2> kPackageKeys{"name", "releases"};
constexpr std::array<std::string_view, 4> kReleaseKeys{"version", "latest", "variants",
                                                       "unverified"};
constexpr std::array<std::string_view, 3> kReleaseRequired{"version", "latest", "variants"};
constexpr std::array<std::string_view, 6> kVariantKeys{"name", "cuda", "arches",
                                                       "ptx",  "rocm", "gfx"};
constexpr std::array<std::string_view, 1> kNameRequired{"name"};
constexpr std::array<std::string_view, 8> kPluginKeys{
    "vendor", "package", "index_url", "source", "note", "pairs", "unverified", "cann_drivers"};
constexpr std::array<std::string_view, 3> kCannDriverKeys{"cann", "drivers", "source"};
constexpr std::array<std::string_view, 2> kPluginRequired{"vendor", "package"};
constexpr std::array<std::string_view, 3> kPairKeys{"torch", "plugin", "cann"};
constexpr std::array<std::string_view, 2> kPairRequired{"torch", "plugin"};

bool is_digits(std::string_view s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "12", "12.8", "525.60.13": dot-separated numbers, what compare_versions understands.
bool is_numeric_version(std::string_view s, size_t min_parts, size_t max_parts) {
  auto parts = split(s, '.');
  if (parts.size() < min_parts || parts.size() > max_parts) return false;
  return std::all_of(parts.begin(), parts.end(), is_digits);
}

bool is_sm_arch(std::string_view s) {
  return s.size() > 3 && s.substr(0, 3) == "sm_" && is_digits(s.substr(3));
}

bool is_gfx(std::string_view s) {
  return s.size() > 3 && s.size() <= 10 && s.substr(0, 3) == "gfx" &&
         std::all_of(s.begin() + 3, s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

// The CUDA version a cu variant name spells: cu128 -> 12.8, cu130 -> 13.0, cu118 -> 11.8.
std::string cuda_of_name(std::string_view name) {
  auto digits = name.substr(2);
  if (digits.size() < 3) return {};
  return cat({digits.substr(0, digits.size() - 1), ".", digits.substr(digits.size() - 1)});
}

class WheelDataParser {
 public:
  explicit WheelDataParser(const YamlReader& r) : r_(r) {}

  WheelData parse(const YAML::Node& root) {
    WheelData d;
    d.file = r_.file();
    if (!root || root.IsNull()) r_.fail(root, "empty file; expected schema: anygpu.wheels/v1");
    r_.expect_map(root, "wheel data");
    r_.check_keys(root, kTopKeys, kTopRequired);
    auto schema = r_.string_at(root, "schema");
    if (schema != "anygpu.wheels/v1")
      r_.fail(root["schema"],
              cat({"unsupported schema '", schema, "'; expected anygpu.wheels/v1"}));
    d.index_url = r_.string_at(root, "index_url");
    if (d.index_url.find("{variant}") == std::string::npos)
      r_.fail(root["index_url"], "index_url: must contain {variant}");
    d.families = floors(root["cuda_families"], "cuda_families", 1, 1);
    if (auto t = root["cuda_toolkits"]; t && !t.IsNull())
      d.toolkits = floors(t, "cuda_toolkits", 2, 2);
    if (auto a = root["arch_lists"]; a && !a.IsNull()) r_.expect_map(a, "arch_lists");
    if (auto a = root["amdgpu_drivers"]; a && !a.IsNull()) d.amdgpu_drivers = amdgpu_drivers(a);
    auto packages = root["packages"];
    r_.expect_sequence(packages, "packages");
    std::set<std::string> names;
    for (const auto& p : packages) {
      d.packages.push_back(package(p, d));
      if (!names.insert(d.packages.back().name).second)
        r_.fail(p, cat({"package '", d.packages.back().name, "' listed twice"}));
    }
    if (auto pl = root["plugins"]; pl && !pl.IsNull()) {
      r_.expect_sequence(pl, "plugins");
      for (const auto& p : pl) d.plugins.push_back(plugin(p));
    }
    return d;
  }

 private:
  std::vector<CudaFloor> floors(const YAML::Node& list, std::string_view what, size_t min_parts,
                                size_t max_parts) {
    r_.expect_sequence(list, what);
    std::vector<CudaFloor> out;
    for (const auto& item : list) {
      r_.expect_map(item, what);
      r_.check_keys(item, kFloorKeys, kFloorKeys);
      CudaFloor f{r_.string_at(item, "cuda"), r_.string_at(item, "driver_min")};
      if (!is_numeric_version(f.cuda, min_parts, max_parts))
        r_.fail(item["cuda"],
                cat({what, ": cuda must look like ", min_parts == 1 ? "\"12\"" : "\"12.8\"",
                     ", got '", f.cuda, "'"}));
      if (!is_numeric_version(f.driver_min, 1, 3))
        r_.fail(item["driver_min"],
                cat({"driver_min: expected a driver version like 525.60.13, got '", f.driver_min,
                     "'"}));
      out.push_back(std::move(f));
    }
    return out;
  }

  std::vector<AmdgpuDriver> amdgpu_drivers(const YAML::Node& list) {
    r_.expect_sequence(list, "amdgpu_drivers");
    std::vector<AmdgpuDriver> out;
    std::set<std::string> kmds, modules;
    for (const auto& item : list) {
      r_.expect_map(item, "amdgpu_drivers");
      r_.check_keys(item, kAmdgpuKeys, kAmdgpuRequired);
      AmdgpuDriver a;
      a.kmd = r_.string_at(item, "kmd");
      if (!is_numeric_version(a.kmd, 2, 2) || !kmds.insert(a.kmd).second)
        r_.fail(item["kmd"],
                cat({"kmd: expected a new major.minor like \"6.2\", got '", a.kmd, "'"}));
      if (item["module"]) {
        a.module = r_.string_at(item, "module");
        if (!is_numeric_version(a.module, 2, 2) || !modules.insert(a.module).second)
          r_.fail(item["module"],
                  cat({"module: expected a new major.minor like \"6.8\", got '", a.module, "'"}));
      }
      a.rocm = r_.strings(item["rocm"], "rocm");
      if (a.rocm.empty()) r_.fail(item["rocm"], "rocm: must not be empty");
      for (size_t i = 0; i < a.rocm.size(); ++i)
        if (!is_numeric_version(a.rocm[i], 2, 2))
          r_.fail(item["rocm"][i],
                  cat({"rocm: expected major.minor like \"6.2\", got '", a.rocm[i], "'"}));
      out.push_back(std::move(a));
    }
    return out;
  }

  WheelPackage package(const YAML::Node& p, const WheelData& d) {
    r_.expect_map(p, "package");
    r_.check_keys(p, kPackageKeys, kPackageKeys);
    WheelPackage pkg;
    pkg.name = r_.string_at(p, "name");
    auto releases = p["releases"];
    r_.expect_sequence(releases, "releases");
    for (const auto& rel : releases) {
      auto r = release(rel, d);
      for (const auto& seen : pkg.releases)
        if (seen.version == r.version) r_.fail(rel, cat({"release ", r.version, " listed twice"}));
      pkg.releases.push_back(std::move(r));
    }
    std::sort(pkg.releases.begin(), pkg.releases.end(), [](const auto& a, const auto& b) {
      return compare_versions(a.version, b.version).value_or(0) < 0;
    });
    return pkg;
  }

  TorchRelease release(const YAML::Node& n, const WheelData& d) {
    r_.expect_map(n, "release");
    r_.check_keys(n, kReleaseKeys, kReleaseRequired);
    TorchRelease rel;
    rel.version = r_.string_at(n, "version");
    if (!is_numeric_version(rel.version, 2, 2))
      r_.fail(n["version"],
              cat({"version: expected major.minor like \"2.9\", got '", rel.version, "'"}));
    rel.latest = r_.string_at(n, "latest");
    if (!is_numeric_version(rel.latest, 3, 3) || rel.latest.rfind(rel.version + ".", 0) != 0)
      r_.fail(n["latest"],
              cat({"latest: expected a ", rel.version, ".N release, got '", rel.latest, "'"}));
    if (auto u = n["unverified"]; u && !u.IsNull()) rel.unverified = r_.strings(u, "unverified");
    auto vs = n["variants"];
    r_.expect_sequence(vs, "variants");
    if (vs.size() == 0) r_.fail(vs, "variants: must not be empty");
    for (const auto& v : vs) {
      auto var = variant(v, d);
      if (rel.variant(var.name)) r_.fail(v, cat({"variant ", var.name, " listed twice"}));
      rel.variants.push_back(std::move(var));
    }
    return rel;
  }

  WheelVariant variant(const YAML::Node& n, const WheelData& d) {
    r_.expect_map(n, "variant");
    r_.check_keys(n, kVariantKeys, kNameRequired);
    WheelVariant v;
    v.name = r_.string_at(n, "name");
    auto forbid = [&](std::initializer_list<std::string_view> keys) {
      for (auto k : keys)
        if (n[std::string(k)])
          r_.fail(n[std::string(k)], cat({k, ": not a property of a ", v.kind, " variant"}));
    };
    if (v.name.size() > 2 && v.name.rfind("cu", 0) == 0 && is_digits(v.name.substr(2))) {
      v.kind = "cuda";
      forbid({"rocm", "gfx"});
      v.cuda = r_.string_at(n, "cuda");
      if (v.cuda != cuda_of_name(v.name))
        r_.fail(n["cuda"],
                cat({"cuda: ", v.name, " is CUDA ", cuda_of_name(v.name), ", not ", v.cuda}));
      if (!d.family_driver_min(v.cuda))
        r_.fail(n["cuda"], cat({"cuda: no cuda_families entry for CUDA ", v.cuda}));
      if (!n["arches"]) r_.fail(n, cat({v.name, ": missing key 'arches'"}));
      v.arches = r_.strings(n["arches"], "arches");
      if (v.arches.empty()) r_.fail(n["arches"], "arches: must not be empty");
      for (size_t i = 0; i < v.arches.size(); ++i)
        if (!is_sm_arch(v.arches[i]))
          r_.fail(n["arches"][i], cat({"arches: expected sm_XY, got '", v.arches[i], "'"}));
      if (auto p = n["ptx"]) {
        v.ptx = r_.scalar(p, "ptx");
        if (!is_sm_arch(*v.ptx)) r_.fail(p, cat({"ptx: expected sm_XY, got '", *v.ptx, "'"}));
      }
    } else if (v.name.rfind("rocm", 0) == 0) {
      v.kind = "rocm";
      forbid({"cuda", "arches", "ptx"});
      v.rocm = r_.string_at(n, "rocm");
      if (!is_numeric_version(v.rocm, 2, 3) || v.name != "rocm" + v.rocm)
        r_.fail(n["rocm"], cat({"rocm: ", v.name, " must state its ROCm version (rocm: \"",
                                v.name.substr(4), "\")"}));
      if (!n["gfx"]) r_.fail(n, cat({v.name, ": missing key 'gfx'"}));
      v.gfx = r_.strings(n["gfx"], "gfx");
      if (v.gfx.empty()) r_.fail(n["gfx"], "gfx: must not be empty");
      for (size_t i = 0; i < v.gfx.size(); ++i)
        if (!is_gfx(v.gfx[i]))
          r_.fail(n["gfx"][i], cat({"gfx: expected a target like gfx942, got '", v.gfx[i], "'"}));
    } else if (v.name == "xpu" || v.name == "cpu") {
      v.kind = v.name;
      forbid({"cuda", "arches", "ptx", "rocm", "gfx"});
    } else {
      r_.fail(n["name"], cat({"name: expected cuNNN, rocmX.Y, xpu or cpu, got '", v.name, "'"}));
    }
    return v;
  }

  VendorPlugin plugin(const YAML::Node& n) {
    r_.expect_map(n, "plugin");
    r_.check_keys(n, kPluginKeys, kPluginRequired);
    VendorPlugin p;
    p.vendor = r_.string_at(n, "vendor");
    p.package = r_.string_at(n, "package");
    p.index_url = r_.optional_string(n, "index_url").value_or("");
    p.source = r_.optional_string(n, "source").value_or("");
    p.note = r_.optional_string(n, "note").value_or("");
    if (auto u = n["unverified"]; u && !u.IsNull()) r_.strings(u, "unverified");
    if (auto pairs = n["pairs"]; pairs && !pairs.IsNull()) {
      r_.expect_sequence(pairs, "pairs");
      for (const auto& item : pairs) {
        r_.expect_map(item, "pair");
        r_.check_keys(item, kPairKeys, kPairRequired);
        PluginPair pair{r_.string_at(item, "torch"), r_.string_at(item, "plugin"),
                        r_.optional_string(item, "cann").value_or("")};
        if (!is_numeric_version(pair.torch, 3, 3))
          r_.fail(item["torch"],
                  cat({"torch: expected a release like 2.1.0, got '", pair.torch, "'"}));
        p.pairs.push_back(std::move(pair));
      }
    }
    if (auto rows = n["cann_drivers"]; rows && !rows.IsNull()) {
      r_.expect_sequence(rows, "cann_drivers");
      for (const auto& item : rows) {
        r_.expect_map(item, "cann_drivers row");
        r_.check_keys(item, kCannDriverKeys, kCannDriverKeys);
        CannDrivers row{r_.string_at(item, "cann"), r_.strings(item["drivers"], "drivers"),
                        r_.string_at(item, "source")};
        for (const auto& d : row.drivers)
          if (!is_numeric_version(d, 2, 2))
            r_.fail(item["drivers"],
                    cat({"drivers: expected an HDK major.minor like \"25.5\", got '", d, "'"}));
        p.cann_drivers.push_back(std::move(row));
      }
    }
    if (p.pairs.empty() && p.note.empty())
      r_.fail(n, cat({p.vendor,
                      ": a plugin without pairs needs a note saying where builds come from"}));
    return p;
  }

  const YamlReader& r_;
};

}  // namespace

const WheelVariant* TorchRelease::variant(std::string_view name) const {
  for (const auto& v : variants)
    if (v.name == name) return &v;
  return nullptr;
}

const TorchRelease* WheelPackage::release(std::string_view version) const {
  auto v = version.substr(0, version.find('+'));
  auto parts = split(v, '.');
  if (parts.size() < 2) return nullptr;
  auto key = cat({parts[0], ".", parts[1]});
  for (const auto& r : releases)
    if (r.version == key) return &r;
  return nullptr;
}

std::string WheelPackage::known_versions() const {
  std::vector<std::string> v;
  for (const auto& r : releases) v.push_back(r.version);
  return join(v, ", ");
}

const WheelPackage* WheelData::package(std::string_view name) const {
  for (const auto& p : packages)
    if (p.name == name) return &p;
  return nullptr;
}

const VendorPlugin* WheelData::plugin(std::string_view vendor) const {
  for (const auto& p : plugins)
    if (p.vendor == vendor) return &p;
  return nullptr;
}

const CannDrivers* VendorPlugin::drivers_for_cann(std::string_view cann) const {
  for (const auto& r : cann_drivers)
    if (r.cann == cann) return &r;
  return nullptr;
}

std::string WheelData::index_for(std::string_view variant) const {
  return replace_placeholder(index_url, "variant", variant);
}

std::optional<std::string> WheelData::family_driver_min(std::string_view cuda) const {
  auto major = cuda.substr(0, cuda.find('.'));
  for (const auto& f : families)
    if (f.cuda == major) return f.driver_min;
  return std::nullopt;
}

std::optional<std::string> WheelData::toolkit_driver_min(std::string_view cuda) const {
  for (const auto& t : toolkits)
    if (t.cuda == cuda) return t.driver_min;
  return std::nullopt;
}

std::optional<std::string> WheelData::cuda_for_driver(std::string_view driver) const {
  const CudaFloor* best = nullptr;
  for (const auto& t : toolkits) {
    auto meets = compare_versions(driver, t.driver_min);
    if (!meets) return std::nullopt;
    if (*meets >= 0 && (!best || compare_versions(t.cuda, best->cuda).value_or(0) > 0)) best = &t;
  }
  if (!best) return std::nullopt;
  return best->cuda;
}

const AmdgpuDriver* WheelData::amdgpu_driver(std::string_view module_version) const {
  auto parts = split(module_version, '.');
  if (parts.size() < 2 || !is_digits(parts[0]) || !is_digits(parts[1])) return nullptr;
  auto key = cat({parts[0], ".", parts[1]});
  for (const auto& a : amdgpu_drivers)
    if (!a.module.empty() && a.module == key) return &a;
  return nullptr;
}

Result<WheelData> parse_wheel_data(std::string_view text, const std::string& file) {
  YamlReader reader(file);
  auto root = reader.parse(text);
  if (!root) return root.error();
  try {
    return WheelDataParser(reader).parse(*root);
  } catch (const LocatedError& e) {
    return bad_input(e.message);
  } catch (const YAML::Exception& e) {
    return bad_input(cat({file, ":", std::to_string(e.mark.line + 1), ":",
                          std::to_string(e.mark.column + 1), ": ", e.msg}));
  }
}

Result<WheelData> load_wheel_data(const std::string& path) {
  constexpr size_t kLimit = (4 << 20) + 1;  // the reader refuses more than 4 MiB
  auto text = read_regular_file(path, kLimit, "wheel data");
  if (!text) return text.error();
  return parse_wheel_data(*text, path);
}

namespace {
// Not a function-local static: the C ABI's callers fork (util/fork_safety.h).
constinit ForkSafeLazy<WheelData> g_builtin_wheel_data;

struct WheelDataInForce {
  WheelData data;
  std::optional<Error> error;
};

WheelDataInForce read_wheel_data_in_force() {
  WheelDataInForce w;
  const char* file = std::getenv(kWheelsEnv);
  // Unset or blank: the built-in table (a blank value is refused by the steering-variable
  // check, util/env_vars.h, at every entry point, with the same message everywhere).
  if (!file || trim(file).empty()) {
    w.data = builtin_wheel_data();
    return w;
  }
  // Read once per process, by programs started from any directory: a relative path would name
  // a different file for each.
  if (file[0] != '/') {
    w.error = bad_input(cat({kWheelsEnv, ": not an absolute path"}));
    return w;
  }
  // The table writes the pip command users run and names its index: refused when anyone but
  // root or this user can change it (util/file_trust.h), as ANYGPU_REGISTRY's files are.
  auto text = read_trusted_file(file, 4u << 20, cat({kWheelsEnv, " file"}));
  if (!text) {
    w.error = text.error();
    return w;
  }
  auto d = parse_wheel_data(*text, file);
  if (d)
    w.data = std::move(*d);
  else
    w.error = bad_input(cat({kWheelsEnv, ": ", d.error().message}));
  return w;
}

constinit ForkSafeLazy<WheelDataInForce> g_wheel_data_in_force;

const WheelDataInForce& in_force() {
  return g_wheel_data_in_force.get(read_wheel_data_in_force);
}
}  // namespace

const WheelData& builtin_wheel_data() {
  // Validated by the build's tests; a broken embedded table is a build defect, not user input.
  return g_builtin_wheel_data.get([] {
    auto d = parse_wheel_data(builtin_wheel_data_text(), "<built-in>/data/wheels.yaml");
    return d ? std::move(*d) : WheelData{};
  });
}

Result<bool> prepare_wheel_data() {
  const auto& w = in_force();
  if (w.error) return *w.error;
  return w.data.file != "<built-in>/data/wheels.yaml";
}

const WheelData& wheel_data() {
  const auto& w = in_force();
  if (w.error) {
    // Reached only by a caller that did not ask prepare_wheel_data() first: deciding on the
    // built-in table instead of the one named would be a silent fallback.
    std::fprintf(stderr, "anygpu: %s\n", w.error->message.c_str());
    std::_Exit(2);
  }
  return w.data;
}

}  // namespace anygpu
