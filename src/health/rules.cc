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

namespace {

Severity severity_of(const YamlReader& r, const YAML::Node& map) {
  auto s = r.string_at(map, "severity");
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "critical") return Severity::critical;
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
  static constexpr std::string_view kKeys[] = {"code", "severity", "action", "verified"};
  static constexpr std::string_view kRequired[] = {"code", "severity", "action"};
  for (const auto& e : list) {
    r.expect_map(e, "library entry");
    r.check_keys(e, kKeys, kRequired);
    CodeRule c;
    c.severity = severity_of(r, e);
    c.action = r.string_at(e, "action");
    if (!out.library.emplace(r.string_at(e, "code"), c).second)
      r.fail(e["code"], "code: listed twice");
  }
}

}  // namespace

Result<HealthRules> parse_health_rules(std::string_view text, const std::string& file) {
  YamlReader r(file);
  auto doc = r.parse(text);
  if (!doc) return doc.error();
  try {
    r.expect_map(*doc, "health rules");
    static constexpr std::string_view kKeys[] = {"schema", "xid", "unknown_xid", "messages",
                                                 "library"};
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
