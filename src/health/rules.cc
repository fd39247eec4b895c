#include "health/rules.h"

#include <cstdio>
#include <cstdlib>

#include "util/strings.h"
#include "util/yaml_reader.h"

namespace anygpu::health {

std::string_view builtin_health_text();  // generated from data/health.yaml

const XidRule& HealthRules::for_xid(int id) const {
  auto it = xid.find(id);
  return it == xid.end() ? unknown_xid : it->second;
}

const std::string& CodeRule::action_for(std::string_view api) const {
  auto it = by_api.find(std::string(api));
  return it == by_api.end() ? action : it->second;
}

const FaultLevelRule& HealthRules::for_dcmi_fault(uint32_t code) const {
  auto it = dcmi_fault_codes.find(code);
  return it == dcmi_fault_codes.end() ? unknown_dcmi_fault : dcmi_fault_levels[it->second];
}

namespace {

Severity severity_of(const YamlReader& r, const YAML::Node& map) {
  auto s = r.string_at(map, "severity");
  for (auto level : {Severity::info, Severity::warning, Severity::error})
    if (s == severity_word(level)) return level;
  r.fail(map["severity"], "severity: expected info, warning or critical");
}

bool verified_of(const YamlReader& r, const YAML::Node& map) {
  auto n = map["verified"];
  return n ? r.boolean(n, "verified") : true;
}

void read_xids(const YamlReader& r, const YAML::Node& list, HealthRules& out) {
  r.expect_sequence(list, "xid");
  static constexpr std::string_view kKeys[] = {"id",      "severity", "bucket",
                                               "summary", "action",   "verified"};
  static constexpr std::string_view kRequired[] = {"id", "severity", "summary", "action"};
  for (const auto& e : list) {
    r.expect_map(e, "xid entry");
    r.check_keys(e, kKeys, kRequired);
    XidRule x;
    double id = r.number(e["id"], "id");
    if (id < 1 || id > 1e6 || id != static_cast<int>(id))
      r.fail(e["id"], "id: expected an Xid number");
    x.id = static_cast<int>(id);
    x.severity = severity_of(r, e);
    x.summary = r.string_at(e, "summary");
    x.action = r.string_at(e, "action");
    x.bucket = r.optional_string(e, "bucket").value_or("");
    x.verified = verified_of(r, e);
    if (!out.xid.emplace(x.id, x).second) r.fail(e["id"], "id: listed twice");
  }
}

void read_messages(const YamlReader& r, const YAML::Node& list, HealthRules& out) {
  r.expect_sequence(list, "messages");
  static constexpr std::string_view kKeys[] = {"driver",  "contains", "code",    "severity",
                                               "message", "action",   "verified"};
  static constexpr std::string_view kRequired[] = {"driver",   "contains", "code",
                                                   "severity", "message",  "action"};
  for (const auto& e : list) {
    r.expect_map(e, "messages entry");
    r.check_keys(e, kKeys, kRequired);
    MessageRule m;
    m.driver = r.string_at(e, "driver");
    m.contains = r.strings(e["contains"], "contains");
    if (m.contains.empty()) r.fail(e["contains"], "contains: expected at least one string");
    for (const auto& piece : m.contains)
      if (piece.empty()) r.fail(e["contains"], "contains: empty string matches everything");
    m.code = r.string_at(e, "code");
    m.severity = severity_of(r, e);
    m.message = r.string_at(e, "message");
    m.action = r.string_at(e, "action");
    m.verified = verified_of(r, e);
    out.messages.push_back(std::move(m));
  }
}

void read_library(const YamlReader& r, const YAML::Node& list, HealthRules& out) {
  r.expect_sequence(list, "library");
  static constexpr std::string_view kKeys[] = {"code", "severity", "action", "by_api", "verified"};
  static constexpr std::string_view kRequired[] = {"code", "severity", "action"};
  for (const auto& e : list) {
    r.expect_map(e, "library entry");
    r.check_keys(e, kKeys, kRequired);
    CodeRule c;
    c.severity = severity_of(r, e);
    c.action = r.string_at(e, "action");
    if (auto apis = e["by_api"]) {
      r.expect_map(apis, "by_api");
      for (const auto& kv : apis) {
        auto api = r.scalar(kv.first, "by_api key");
        if (!c.by_api.emplace(api, r.scalar(kv.second, "by_api action")).second)
          r.fail(kv.first, "by_api: " + api + " listed twice");
      }
    }
    if (!out.library.emplace(r.string_at(e, "code"), c).second)
      r.fail(e["code"], "code: listed twice");
  }
}

// Each level's codes: eight hex digits, as Ascend writes them; a code belongs to one level.
void read_fault_levels(const YamlReader& r, const YAML::Node& list, HealthRules& out) {
  r.expect_sequence(list, "dcmi_fault_levels");
  static constexpr std::string_view kKeys[] = {"level", "source", "severity", "action", "codes"};
  for (const auto& e : list) {
    r.expect_map(e, "dcmi_fault_levels entry");
    r.check_keys(e, kKeys, kKeys);
    FaultLevelRule l{r.string_at(e, "level"), r.string_at(e, "source"), severity_of(r, e),
                     r.string_at(e, "action")};
    for (const auto& other : out.dcmi_fault_levels)
      if (other.level == l.level) r.fail(e["level"], "level: listed twice");
    auto codes = e["codes"];
    r.expect_sequence(codes, "codes");
    for (const auto& c : codes) {
      auto text = r.scalar(c, "codes");
      // Quoted: other YAML readers take a plain 80E01801 for a number (8.0e1801).
      if (c.Tag() != "!") r.fail(c, cat({"codes: quote ", text, " (\"", text, "\")"}));
      auto value = text.size() == 8 ? parse_hex(text) : std::nullopt;
      if (!value || text.find_first_of("xX") != std::string::npos)
        r.fail(c, "codes: expected eight hex digits");
      if (!out.dcmi_fault_codes.emplace(static_cast<uint32_t>(*value), out.dcmi_fault_levels.size())
               .second)
        r.fail(c, cat({"codes: ", text, " is listed twice"}));
    }
    out.dcmi_fault_levels.push_back(std::move(l));
  }
}

}  // namespace

Result<HealthRules> parse_health_rules(std::string_view text, const std::string& file) {
  YamlReader r(file);
  auto doc = r.parse(text);
  if (!doc) return doc.error();
  try {
    r.expect_map(*doc, "health rules");
    static constexpr std::string_view kKeys[] = {"schema",
                                                 "xid",
                                                 "unknown_xid",
                                                 "messages",
                                                 "library",
                                                 "dcmi_fault_levels",
                                                 "unknown_dcmi_fault"};
    static constexpr std::string_view kRequired[] = {"schema", "xid", "unknown_xid", "messages"};
    r.check_keys(*doc, kKeys, kRequired);
    if (r.scalar((*doc)["schema"], "schema") != "1") r.fail((*doc)["schema"], "schema: expected 1");
    HealthRules out;
    read_xids(r, (*doc)["xid"], out);
    auto unknown = (*doc)["unknown_xid"];
    r.expect_map(unknown, "unknown_xid");
    static constexpr std::string_view kUnknown[] = {"severity", "action"};
    r.check_keys(unknown, kUnknown, kUnknown);
    out.unknown_xid.severity = severity_of(r, unknown);
    out.unknown_xid.action = r.string_at(unknown, "action");
    out.unknown_xid.summary = "Xid not in the catalogue anygpu carries";
    out.unknown_xid.verified = false;
    read_messages(r, (*doc)["messages"], out);
    if (auto lib = (*doc)["library"]) read_library(r, lib, out);
    if (auto levels = (*doc)["dcmi_fault_levels"]) read_fault_levels(r, levels, out);
    out.unknown_dcmi_fault = {"unknown", "", Severity::warning, ""};
    if (auto unknown_fault = (*doc)["unknown_dcmi_fault"]) {
      r.expect_map(unknown_fault, "unknown_dcmi_fault");
      r.check_keys(unknown_fault, kUnknown, kUnknown);
      out.unknown_dcmi_fault.severity = severity_of(r, unknown_fault);
      out.unknown_dcmi_fault.action = r.string_at(unknown_fault, "action");
    }
    return out;
  } catch (const LocatedError& e) {
    return bad_input(e.message);
  }
}

const HealthRules& builtin_health_rules() {
  static const HealthRules rules = [] {
    auto r = parse_health_rules(builtin_health_text(), "<built-in>/data/health.yaml");
    if (!r) {
      // The build validates the file (health_rules tests); reaching this is a packaging bug.
      std::fprintf(stderr, "anygpu: %s\n", r.error().message.c_str());
      std::abort();
    }
    return std::move(r.value());
  }();
  return rules;
}

}  // namespace anygpu::health
