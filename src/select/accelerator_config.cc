#include "select/accelerator_config.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/arch.h"
#include "model/inventory.h"
#include "probe/runtimes.h"
#include "util/regular_file.h"
#include "util/strings.h"
#include "util/suggest.h"
#include "util/version.h"
#include "util/yaml_reader.h"

namespace anygpu {

namespace {

constexpr std::array<std::string_view, 4> kConfigTopKeys = {"backend", "device_selection_policy",
                                                            "devices", "runtime_contract"};
constexpr std::array<std::string_view, 2> kRuleKeys = {"priority", "criteria"};
// In CriterionType's order.
constexpr std::array<std::string_view, 8> kTypes = {
    "gpu_vendor",   "gpu_compute_capability", "driver_version", "memory_gb",
    "device_count", "free_memory_gb",         "utilization",    "holders"};
constexpr std::string_view kTypeList =
    "gpu_vendor, gpu_compute_capability, driver_version, memory_gb, device_count, "
    "free_memory_gb, utilization, holders";

// Every name `backend:` accepts, for messages and suggestions.
std::vector<std::string> backend_words(const Registry& registry) {
  // Vendor names first: on a tie ("cdua" is as close to "cpu" as to "cuda") they win.
  std::vector<std::string> out;
  for (const auto& v : registry.vendors()) {
    for (auto b : v.backend_names) out.emplace_back(b);
    out.emplace_back(v.id);
  }
  out.emplace_back("auto");
  out.emplace_back("cpu");
  return out;
}

std::string suggestion(std::string_view word, const std::vector<std::string>& words) {
  std::vector<std::string_view> views(words.begin(), words.end());
  return did_you_mean(word, views);
}

std::vector<std::string> vendor_ids(const Registry& registry) {
  std::vector<std::string> out;
  for (const auto& v : registry.vendors()) out.emplace_back(v.id);
  return out;
}

// A whole number within [lo, hi]; YAML gives it as text.
long integer(const YamlReader& r, const YAML::Node& n, std::string_view what, long lo, long hi) {
  auto s = r.scalar(n, what);
  auto v = parse_int(s);
  if (!v || *v < lo || *v > hi)
    r.fail(n, cat({what, ": expected a whole number from ", std::to_string(lo), " to ",
                   std::to_string(hi), ", got '", s, "'"}));
  return static_cast<long>(*v);
}

// "sm_80", "sm_90a" -> 80/90 (major*10+minor); "8.0" also reads as sm_80.
std::optional<int> sm_number(std::string_view arch) {
  if (arch.starts_with("sm_")) {
    auto a = Arch::parse(arch);
    if (!a || !a->is_nvidia()) return std::nullopt;
    return a->sm();
  }
  auto dot = arch.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = parse_int(arch.substr(0, dot));
  auto minor = parse_int(arch.substr(dot + 1));
  if (!major || !minor || *major < 1 || *major > 99 || *minor < 0 || *minor > 9 ||
      arch.size() - dot != 2)
    return std::nullopt;
  return static_cast<int>(*major * 10 + *minor);
}

// utilization max: a ratio 0..1 (0.3), or a percentage written with '%' (30%). A bare number
// above 1 is refused rather than guessed at: is `max: 1` one percent or all of it?
double utilization_ratio(const YamlReader& r, const YAML::Node& n) {
  auto s = r.scalar(n, "utilization max");
  auto text = trim(s);
  bool percent = text.ends_with('%');
  if (percent) text = trim(text.substr(0, text.size() - 1));
  auto v = parse_double(text);
  double limit = percent ? 100.0 : 1.0;
  if (!v || !(*v >= 0 && *v <= limit))
    r.fail(n, cat({"utilization max: expected a ratio from 0 to 1 (0.3) or a percentage from 0% "
                   "to 100% (30%), got '",
                   s, "'"}));
  return percent ? *v / 100.0 : *v;
}

bool plain_arch_word(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
        c != '*')
      return false;
  auto star = s.find('*');
  return star == std::string_view::npos || star == s.size() - 1;
}

std::vector<std::string> scalar_or_list(const YamlReader& r, const YAML::Node& n,
                                        std::string_view what) {
  if (n.IsSequence()) {
    auto out = r.strings(n, what);
    if (out.empty()) r.fail(n, cat({what, ": must name at least one value"}));
    return out;
  }
  auto s = r.scalar(n, what);
  if (s.empty()) r.fail(n, cat({what, ": must not be empty"}));
  return {s};
}

Criterion parse_criterion(const YamlReader& r, const YAML::Node& n, const Registry& registry) {
  r.expect_map(n, "criterion");
  auto type_node = n["type"];
  if (!type_node) {
    r.check_keys(n, std::array<std::string_view, 4>{"type", "min", "max", "equals"}, {});
    r.fail(n, cat({"criterion: missing key 'type' (one of ", kTypeList, ")"}));
  }
  auto type = r.scalar(type_node, "type");
  Criterion c;
  c.where = r.where(n);
  if (type == "gpu_vendor") {
    c.type = CriterionType::gpu_vendor;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "equals"},
                 std::array<std::string_view, 1>{"equals"});
    auto ids = vendor_ids(registry);
    auto node = n["equals"];
    c.equals = scalar_or_list(r, node, "equals");
    for (size_t i = 0; i < c.equals.size(); ++i) {
      auto& v = c.equals[i];
      v = to_lower(v);
      if (std::find(ids.begin(), ids.end(), v) == ids.end())
        r.fail(node.IsSequence() ? node[i] : node,
               cat({"gpu_vendor: unknown vendor '", v, "'", suggestion(v, ids),
                    "; known: ", join(ids, ", ")}));
    }
  } else if (type == "gpu_compute_capability") {
    c.type = CriterionType::gpu_compute_capability;
    r.check_keys(n, std::array<std::string_view, 3>{"type", "min", "equals"}, {});
    auto min = n["min"];
    auto eq = n["equals"];
    if (static_cast<bool>(min) == static_cast<bool>(eq))
      r.fail(n, "gpu_compute_capability: give exactly one of 'min' or 'equals'");
    if (min) {
      auto s = r.scalar(min, "min");
      auto v = sm_number(s);
      if (!v)
        r.fail(min, cat({"gpu_compute_capability min: expected an NVIDIA compute capability like "
                         "sm_80 or 8.0, got '",
                         s,
                         "' (other architectures have no order; use equals, e.g. gfx942 or "
                         "gfx94*)"}));
      c.min = "sm_" + std::to_string(*v);
    } else {
      c.equals = scalar_or_list(r, eq, "equals");
      for (size_t i = 0; i < c.equals.size(); ++i) {
        auto& v = c.equals[i];
        v = to_lower(v);
        if (auto sm = sm_number(v)) v = "sm_" + std::to_string(*sm);
        if (!plain_arch_word(v))
          r.fail(eq.IsSequence() ? eq[i] : eq,
                 cat({"gpu_compute_capability equals: '", v,
                      "' is not an architecture name (sm_90, gfx942, gfx94*, xe-hpc, …)"}));
      }
    }
  } else if (type == "driver_version") {
    c.type = CriterionType::driver_version;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "min"},
                 std::array<std::string_view, 1>{"min"});
    auto s = r.scalar(n["min"], "min");
    if (!is_dotted_version(s))
      r.fail(n["min"],
             cat({"driver_version min: expected a dotted version like 535.54.03, got '", s, "'"}));
    c.min = s;
  } else if (type == "memory_gb") {
    c.type = CriterionType::memory_gb;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "min"},
                 std::array<std::string_view, 1>{"min"});
    c.min_number = r.number(n["min"], "memory_gb min");
  } else if (type == "device_count") {
    c.type = CriterionType::device_count;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "min"},
                 std::array<std::string_view, 1>{"min"});
    c.min_number = static_cast<double>(integer(r, n["min"], "device_count min", 1, 65536));
  } else if (type == "free_memory_gb") {
    c.type = CriterionType::free_memory_gb;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "min"},
                 std::array<std::string_view, 1>{"min"});
    c.min_number = r.number(n["min"], "free_memory_gb min");
  } else if (type == "utilization") {
    c.type = CriterionType::utilization;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "max"},
                 std::array<std::string_view, 1>{"max"});
    c.max_number = utilization_ratio(r, n["max"]);
  } else if (type == "holders") {
    c.type = CriterionType::holders;
    r.check_keys(n, std::array<std::string_view, 2>{"type", "max"},
                 std::array<std::string_view, 1>{"max"});
    c.max_number = static_cast<double>(integer(r, n["max"], "holders max", 0, 65536));
  } else {
    r.fail(type_node, cat({"unknown criterion type '", type, "'", did_you_mean(type, kTypes),
                           "; known: ", kTypeList}));
  }
  return c;
}

DeviceRef parse_device_ref(const YamlReader& r, const YAML::Node& n) {
  auto s = r.scalar(n, "devices");
  if (auto i = parse_int(s); i && s.find(':') == std::string::npos && (*i < 0 || *i > 65535))
    r.fail(n, cat({"devices: index out of range: '", s, "'"}));
  auto ref = parse_device_ref_text(s);
  if (!ref)
    r.fail(n, cat({"devices: '", s,
                   "' is neither a device index (0, 1, …) nor a PCI bus id like 0000:18:00.0, "
                   "nor a partition (0:1, 0000:18:00.0/1, MIG-<uuid>)"}));
  return *ref;
}

AcceleratorConfig parse_root(const YamlReader& r, const YAML::Node& root, const std::string& file,
                             const Registry& registry) {
  AcceleratorConfig cfg;
  cfg.file = file;
  if (!root || root.IsNull()) return cfg;  // an empty file: all defaults
  r.expect_map(root, "accelerator config");
  r.check_keys(root, kConfigTopKeys, {});

  if (auto b = root["backend"]) {
    auto s = r.scalar(b, "backend");
    auto vendor = resolve_backend(s, registry);
    if (!vendor) {
      auto words = backend_words(registry);
      r.fail(b, cat({"backend: unknown backend '", s, "'", suggestion(to_lower(s), words),
                     "; known: ", join(words, ", ")}));
    }
    cfg.backend = *vendor;
    cfg.backend_written = s;
  }

  if (auto p = root["device_selection_policy"]; p && !p.IsNull()) {
    r.expect_sequence(p, "device_selection_policy");
    for (const auto& rule_node : p) {
      r.expect_map(rule_node, "device_selection_policy entry");
      r.check_keys(rule_node, kRuleKeys, std::array<std::string_view, 1>{"priority"});
      PolicyRule rule;
      rule.where = r.where(rule_node);
      rule.priority = integer(r, rule_node["priority"], "priority", 0, 1000000);
      if (auto crit = rule_node["criteria"]; crit && !crit.IsNull()) {
        r.expect_sequence(crit, "criteria");
        for (const auto& c : crit) rule.criteria.push_back(parse_criterion(r, c, registry));
      }
      cfg.policy.push_back(std::move(rule));
    }
    std::stable_sort(cfg.policy.begin(), cfg.policy.end(),
                     [](const auto& a, const auto& b) { return a.priority < b.priority; });
  }

  if (auto d = root["devices"]) {
    if (d.IsSequence()) {
      if (d.size() == 0) r.fail(d, "devices: an empty list selects nothing; use 'all'");
      for (const auto& item : d) {
        auto ref = parse_device_ref(r, item);
        for (const auto& seen : cfg.list)
          if (seen == ref) r.fail(item, cat({"devices: '", ref.text(), "' is listed twice"}));
        cfg.list.push_back(ref);
      }
      cfg.list_origin = cat({r.where(d), ": devices"});
    } else {
      auto s = r.scalar(d, "devices");
      if (s != "all") {
        auto v = parse_int(s);
        if (!v || *v < 1 || *v > 65536)
          r.fail(d, cat({"devices: expected 'all', a count (1, 2, …) or a list of bus ids or "
                         "indices, got '",
                         s, "'"}));
        cfg.count = static_cast<int>(*v);
      }
    }
  }

  if (auto c = root["runtime_contract"]) {
    auto s = r.scalar(c, "runtime_contract");
    if (s.empty()) r.fail(c, "runtime_contract: must not be empty");
    std::filesystem::path path(s);
    if (path.is_relative()) {
      auto dir = std::filesystem::path(file).parent_path();
      path = dir.empty() ? path : dir / path;
    }
    cfg.runtime_contract = path.lexically_normal().string();
  }
  return cfg;
}

}  // namespace

std::string_view to_string(CriterionType t) {
  return kTypes[static_cast<size_t>(t)];
}

std::string DeviceRef::text() const {
  if (uuid) return *uuid;
  if (bus_id) return partition ? cat({*bus_id, "/", std::to_string(*partition)}) : *bus_id;
  auto i = std::to_string(index.value_or(0));
  return partition ? cat({i, ":", std::to_string(*partition)}) : i;
}

namespace {

// 0..65535 written as digits only.
std::optional<int> small_number(std::string_view s) {
  if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  auto v = parse_int(s);
  return v && *v <= 65535 ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<std::string> bus_of(std::string_view s) {
  auto addr = PciAddress::parse(s);
  if (!addr && std::count(s.begin(), s.end(), ':') == 1)
    addr = PciAddress::parse(cat({"0000:", s}));
  return addr ? std::optional<std::string>(addr->str()) : std::nullopt;
}

// "MIG-<uuid>" or the legacy "MIG-GPU-<uuid>/<gi>/<ci>" (F-9): letters, digits, '-' and '/'.
bool mig_uuid_text(std::string_view s) {
  return s.size() > 4 && s.size() <= 96 && s.starts_with("MIG-") &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '/';
         });
}

}  // namespace

Result<bool> apply_devices_option(AcceleratorConfig& config, std::string_view text) {
  auto t = trim(text);
  config.count.reset();
  config.list.clear();
  config.list_origin = cat({"--devices ", t});
  if (t == "all") return true;
  if (auto n = small_number(t)) {
    if (*n < 1) return bad_input("--devices 0: expected all, a count (1, 2, …) or a list");
    config.count = *n;
    return true;
  }
  for (auto entry : split(t, ',')) {
    if (trim(entry).empty()) continue;  // "0," is the list [0]; "0" is a count
    auto ref = parse_device_ref_text(trim(entry));
    if (!ref)
      return bad_input(cat({"--devices: '", escape_control(trim(entry)),
                            "' is neither a device index or PCI bus id nor a partition (0:1, "
                            "0000:18:00.0/1, MIG-<uuid>)"}));
    if (std::find(config.list.begin(), config.list.end(), *ref) != config.list.end())
      return bad_input(cat({"--devices: '", ref->text(), "' is listed twice"}));
    config.list.push_back(*ref);
  }
  if (config.list.empty()) return bad_input("--devices: an empty list selects nothing; use all");
  return true;
}

std::optional<DeviceRef> parse_device_ref_text(std::string_view s) {
  DeviceRef ref;
  if (mig_uuid_text(s)) {
    ref.uuid = std::string(s);
    return ref;
  }
  if (auto i = small_number(s)) {
    ref.index = *i;
    return ref;
  }
  auto slash = s.find('/');
  auto colon = s.find(':');
  if (slash == std::string_view::npos && colon != std::string_view::npos &&
      s.find(':', colon + 1) == std::string_view::npos && s.find('.') == std::string_view::npos) {
    auto i = small_number(s.substr(0, colon)), p = small_number(s.substr(colon + 1));
    if (!i || !p) return std::nullopt;
    ref.index = *i;
    ref.partition = *p;
    return ref;
  }
  if (slash != std::string_view::npos) {
    auto p = small_number(s.substr(slash + 1));
    if (!p) return std::nullopt;
    ref.partition = *p;
  }
  ref.bus_id = bus_of(s.substr(0, slash));
  if (!ref.bus_id) return std::nullopt;
  return ref;
}

std::optional<std::string> resolve_backend(std::string_view name, const Registry& registry) {
  auto s = to_lower(trim(name));
  if (s == "auto" || s == "cpu") return s;
  for (const auto& v : registry.vendors()) {
    if (v.id == s) return std::string(v.id);
    for (auto b : v.backend_names)
      if (b == s) return std::string(v.id);
  }
  return std::nullopt;
}

Result<AcceleratorConfig> parse_accelerator_config(std::string_view text, const std::string& file,
                                                   const Registry& registry) {
  YamlReader r(file);
  if (text.size() > kMaxConfigBytes) {
    // Name the place where the limit was crossed.
    size_t line = 1, col = 1;
    for (size_t i = 0; i < kMaxConfigBytes; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return bad_input(cat({file, ":", std::to_string(line), ":", std::to_string(col),
                          ": file exceeds 1 MiB here; an accelerator config is a few lines"}));
  }
  auto root = r.parse(text);
  if (!root) return root.error();
  try {
    return parse_root(r, *root, file, registry);
  } catch (const LocatedError& e) {
    return bad_input(e.message);
  } catch (const YAML::Exception& e) {
    return bad_input(cat({file, ":", std::to_string(e.mark.line + 1), ":",
                          std::to_string(e.mark.column + 1), ": ", e.msg}));
  }
}

Result<AcceleratorConfig> load_accelerator_config(const std::string& path, bool must_exist,
                                                  const Registry& registry) {
  auto text = read_regular_file(path, kMaxConfigBytes + 1, "the accelerator config to apply");
  if (!text) {
    if (text.error().sys_errno == ENOENT && !must_exist) return AcceleratorConfig{};
    return text.error();
  }
  return parse_accelerator_config(*text, path, registry);
}

}  // namespace anygpu
