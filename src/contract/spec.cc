#include "contract/spec.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>

#include "model/arch.h"
#include "registry/registry.h"
#include "util/regular_file.h"
#include "util/strings.h"
#include "util/suggest.h"
#include "util/version.h"
#include "util/yaml_reader.h"

namespace anygpu {

namespace {

constexpr std::array<std::string_view, 2> kSpecTopKeys{"required_features", "dependencies"};
constexpr std::array<std::string_view, 7> kFeatureKeys{
    "gpu_compute_capability", "memory_bandwidth_gbps", "driver_version_min", "vendor",
    "device_count_min",       "memory_gb_min",         "kernel_version_min"};
constexpr std::array<std::string_view, 4> kDependencyKeys{
    "name", "version_range", "vendor_agnostic_wheel", "full_distribution"};
constexpr std::array<std::string_view, 1> kDependencyRequired{"name"};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> known_arches() {
  std::set<std::string_view> seen;
  std::vector<std::string_view> out;
  for (const auto& d : Registry::builtin().devices())
    if (!d.arch.empty() && seen.insert(d.arch).second) out.push_back(d.arch);
  return out;
}

class ContractParser {
 public:
  explicit ContractParser(const YamlReader& r) : r_(r) {}

  ContractSpec parse(const YAML::Node& root) {
    ContractSpec spec;
    if (!root || root.IsNull()) return spec;  // an empty file states no requirements
    r_.expect_map(root, "runtime contract");
    r_.check_keys(root, kSpecTopKeys, {});
    if (auto f = root["required_features"]; f && !f.IsNull()) features(f, spec);
    if (auto d = root["dependencies"]; d && !d.IsNull()) dependencies(d, spec);
    return spec;
  }

 private:
  void features(const YAML::Node& list, ContractSpec& spec) {
    if (list.IsMap())
      r_.fail(list,
              "required_features: expected a list of one-key items, e.g. "
              "'- gpu_compute_capability: sm_80'");
    r_.expect_sequence(list, "required_features");
    std::vector<std::pair<std::string, std::string>> seen;  // key, where
    for (const auto& item : list) {
      if (!item.IsMap() || item.size() != 1)
        r_.fail(item,
                "required_features: each item is one 'key: value' pair, e.g. "
                "'- driver_version_min: 535.54.03'");
      r_.check_keys(item, kFeatureKeys, {});
      auto it = item.begin();
      const auto key = it->first.Scalar();
      for (const auto& [k, where] : seen)
        if (k == key)
          r_.fail(it->first, cat({"'", key, "' is given twice (first at ", where, ")"}));
      seen.emplace_back(key, r_.where(it->first));
      spec.order.push_back(key);
      feature(key, it->second, spec);
    }
  }

  void feature(const std::string& key, const YAML::Node& v, ContractSpec& spec) {
    if (!v || v.IsNull()) r_.fail(v, cat({key, ": missing value"}));
    if (key == "gpu_compute_capability") {
      for (const auto& [text, node] : one_or_list(v, key)) {
        auto req = ArchRequirement::parse(text);
        if (!req)
          r_.fail(node, cat({key, ": '", text, "' is not an architecture", arch_hint(text)}));
        if (req->kind == ArchRequirement::Kind::exact) {
          auto arches = known_arches();
          if (std::find(arches.begin(), arches.end(), req->name) == arches.end())
            r_.fail(node, cat({key, ": unknown architecture '", text, "'", arch_hint(text),
                               " (NVIDIA: sm_XY; AMD: gfxNNNN or a family like gfx94*; "
                               "other vendors: the arch names of data/devices.yaml)"}));
        }
        spec.compute_capability.push_back(std::move(*req));
      }
    } else if (key == "memory_bandwidth_gbps") {
      spec.memory_bandwidth_gbps = positive(v, key);
    } else if (key == "memory_gb_min") {
      spec.memory_gb_min = positive(v, key);
    } else if (key == "driver_version_min" || key == "kernel_version_min") {
      auto s = r_.scalar(v, key);
      if (!is_dotted_version(s))
        r_.fail(v, cat({key, ": expected a dotted version like ",
                        key == "driver_version_min" ? "535.54.03" : "5.15", ", got '", s, "'"}));
      (key == "driver_version_min" ? spec.driver_version_min : spec.kernel_version_min) = s;
    } else if (key == "vendor") {
      std::vector<std::string_view> ids;
      for (const auto& vendor : Registry::builtin().vendors()) ids.push_back(vendor.id);
      for (const auto& [text, node] : one_or_list(v, key)) {
        auto id = to_lower(text);
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
          r_.fail(node,
                  cat({"vendor: unknown vendor '", text, "'", did_you_mean(id, ids), " (vendors: ",
                       join(std::vector<std::string>(ids.begin(), ids.end()), ", "), ")"}));
        if (std::find(spec.vendors.begin(), spec.vendors.end(), id) == spec.vendors.end())
          spec.vendors.push_back(id);
      }
    } else if (key == "device_count_min") {
      auto s = r_.scalar(v, key);
      auto n = parse_int(s);
      if (!n || *n < 1 || *n > 1000000 || !all_digits(trim(s)))
        r_.fail(v, cat({key, ": expected a whole number of at least 1, got '", s, "'"}));
      spec.device_count_min = static_cast<int>(*n);
    }
  }

  std::vector<std::pair<std::string, YAML::Node>> one_or_list(const YAML::Node& v,
                                                              const std::string& key) {
    std::vector<std::pair<std::string, YAML::Node>> out;
    if (v.IsSequence()) {
      if (v.size() == 0) r_.fail(v, cat({key, ": the list is empty"}));
      for (const auto& item : v) {
        auto s = r_.scalar(item, key);
        if (trim(s).empty()) r_.fail(item, cat({key, ": empty value"}));
        out.emplace_back(std::string(trim(s)), item);
      }
    } else {
      auto s = r_.scalar(v, key);
      if (trim(s).empty()) r_.fail(v, cat({key, ": empty value"}));
      out.emplace_back(std::string(trim(s)), v);
    }
    return out;
  }

  double positive(const YAML::Node& v, const std::string& key) {
    double d = r_.number(v, key);
    if (d <= 0) r_.fail(v, cat({key, ": must be greater than 0"}));
    return d;
  }

  static std::string arch_hint(std::string_view text) {
    auto t = to_lower(trim(text));
    if (t.size() > 2 && t.substr(0, 2) == "sm" && all_digits(std::string_view(t).substr(2)))
      return cat({" (did you mean 'sm_", std::string_view(t).substr(2), "'?)"});
    if (t.size() > 3 && t.substr(0, 3) == "sm_")
      return " (NVIDIA targets are sm_ and digits, e.g. sm_80)";
    if (t.size() > 3 && t.substr(0, 3) == "gfx")
      return " (AMD targets look like gfx90a or gfx942, a family like gfx94*)";
    auto arches = known_arches();
    return did_you_mean(t, arches);
  }

  void dependencies(const YAML::Node& list, ContractSpec& spec) {
    if (list.IsMap())
      r_.fail(list, "dependencies: expected a list of packages, e.g. '- name: pytorch'");
    r_.expect_sequence(list, "dependencies");
    for (const auto& item : list) {
      if (!item.IsMap()) r_.fail(item, "dependencies: each item is a mapping with at least 'name'");
      r_.check_keys(item, kDependencyKeys, kDependencyRequired);
      Dependency d;
      d.name = std::string(trim(r_.string_at(item, "name")));
      auto nm = item["name"];
      bool ok_name = !d.name.empty() && std::all_of(d.name.begin(), d.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
      });
      if (!ok_name) r_.fail(nm, cat({"name: '", d.name, "' is not a Python package name"}));
      d.dist = normalize_dist_name(d.name);
      for (const auto& other : spec.dependencies)
        if (other.dist == d.dist) r_.fail(nm, cat({"dependency '", d.name, "' is listed twice"}));
      if (auto vr = item["version_range"]) {
        auto text = r_.scalar(vr, "version_range");
        auto set = pep440::SpecifierSet::parse(text);
        if (!set) r_.fail(vr, cat({"version_range: ", set.error().message}));
        if (set->specifiers().empty())
          r_.fail(vr, "version_range: empty (leave the key out to accept any version)");
        d.version_range = std::move(*set);
      }
      for (auto key : {"vendor_agnostic_wheel", "full_distribution"}) {
        auto n = item[key];
        if (!n) continue;
        bool b = r_.boolean(n, key);
        if (b && !d.is_torch())
          r_.fail(n, cat({key, ": applies to pytorch (torch) only, not '", d.name, "'"}));
        (std::string_view(key) == "full_distribution" ? d.full_distribution
                                                      : d.vendor_agnostic_wheel) = b;
      }
      spec.dependencies.push_back(std::move(d));
    }
  }

  const YamlReader& r_;
};

}  // namespace

std::optional<ArchRequirement> ArchRequirement::parse(std::string_view text) {
  ArchRequirement a;
  a.text = to_lower(trim(text));
  std::string_view t = a.text;
  if (t.empty() || t.size() > 64) return std::nullopt;
  auto base = t.substr(0, t.find(':'));  // gfx90a:sramecc+:xnack- → gfx90a
  if (base.substr(0, 3) == "sm_") {
    auto arch = Arch::parse(base);
    if (!arch || !arch->is_nvidia()) return std::nullopt;
    a.kind = arch->variant ? Kind::nvidia_exact : Kind::nvidia_min;
    a.major = arch->major;
    a.minor = arch->minor;
    return a;
  }
  // "8.0": a compute capability written as a number (YAML reads sm-less values as floats).
  if (auto dot = base.find('.'); dot != std::string_view::npos && all_digits(base.substr(0, dot)) &&
                                 base.size() - dot == 2 && all_digits(base.substr(dot + 1)) &&
                                 dot <= 2) {
    a.kind = Kind::nvidia_min;
    a.major = static_cast<int>(*parse_uint(base.substr(0, dot)));
    a.minor = base[dot + 1] - '0';
    return a;
  }
  if (base.substr(0, 3) == "gfx") {
    bool family = base.ends_with('*');
    auto arch = Arch::parse(family ? base.substr(0, base.size() - 1) : base);
    if (!arch || !arch->is_gfx()) return std::nullopt;
    a.kind = family ? Kind::gfx_family : Kind::gfx;
    a.name = arch->name;
    return a;
  }
  if (base != t) return std::nullopt;  // features only on gfx targets
  if (!std::all_of(t.begin(), t.end(),
                   [](char c) {
                     return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                            c == '.';
                   }) ||
      !std::isalpha(static_cast<unsigned char>(t.front())))
    return std::nullopt;
  a.kind = Kind::exact;
  a.name = std::string(t);
  return a;
}

bool ArchRequirement::accepts(std::string_view device_arch) const {
  auto arch = to_lower(device_arch);
  std::string_view d = arch;
  d = d.substr(0, d.find(':'));
  switch (kind) {
    case Kind::nvidia_min:
    case Kind::nvidia_exact: {
      auto dev = parse(d);
      if (!dev || !dev->is_nvidia()) return false;
      if (kind == Kind::nvidia_exact) return dev->major == major && dev->minor == minor;
      return std::pair(dev->major, dev->minor) >= std::pair(major, minor);
    }
    case Kind::gfx:
      return d == name;
    case Kind::gfx_family:
      return d.size() > name.size() && d.substr(0, name.size()) == name && d.substr(0, 3) == "gfx";
    case Kind::exact:
      return d == name;
  }
  return false;
}

std::string ArchRequirement::describe() const {
  switch (kind) {
    case Kind::nvidia_min:
      return cat({">= sm_", std::to_string(major), std::to_string(minor)});
    case Kind::nvidia_exact:
      return text;
    case Kind::gfx:
      return name;
    case Kind::gfx_family:
      return name + "*";
    case Kind::exact:
      return name;
  }
  return text;
}

Result<ContractSpec> parse_contract(std::string_view text, const std::string& file) {
  YamlReader reader(file);
  auto root = reader.parse(text);
  if (!root) return root.error();
  try {
    return ContractParser(reader).parse(*root);
  } catch (const LocatedError& e) {
    return bad_input(e.message);
  } catch (const YAML::Exception& e) {
    return bad_input(cat({file, ":", std::to_string(e.mark.line + 1), ":",
                          std::to_string(e.mark.column + 1), ": ", e.msg}));
  }
}

Result<ContractSpec> load_contract(const std::string& path) {
  constexpr size_t kLimit = (4 << 20) + 1;  // the reader refuses more than 4 MiB
  auto text = read_regular_file(path, kLimit, "the runtime contract to check");
  if (!text) return text.error();
  return parse_contract(*text, path);
}

}  // namespace anygpu
