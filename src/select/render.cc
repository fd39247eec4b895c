#include "select/render.h"

#include "util/strings.h"

namespace anygpu {

namespace {
bool safe_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
         c == ',' || c == ':' || c == '/' || c == '+' || c == '@' || c == '%' || c == '=';
}
bool all_safe(std::string_view v) {
  if (v.empty()) return false;
  for (char c : v)
    if (!safe_char(c)) return false;
  return true;
}
}  // namespace

std::string shell_quote(std::string_view value) {
  if (all_safe(value)) return std::string(value);
  std::string out = "'";
  for (char c : value) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

std::string dotenv_quote(std::string_view value) {
  if (all_safe(value)) return std::string(value);
  if (value.find('\'') == std::string_view::npos && value.find('\n') == std::string_view::npos)
    return cat({"'", value, "'"});
  std::string out = "\"";
  for (char c : value) {
    if (c == '\\' || c == '"' || c == '$' || c == '`') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

std::string selection_to_shell(const Selection& s) {
  std::string out;
  // Lines of up to a few variables: identity (4), devices (2), the vendor's own.
  size_t i = 0;
  for (size_t group : {size_t{4}, size_t{2}, s.env.size()}) {
    std::string line;
    for (size_t k = 0; k < group && i < s.env.size(); ++k, ++i)
      line +=
          cat({line.empty() ? "export " : " ", s.env[i].first, "=", shell_quote(s.env[i].second)});
    if (!line.empty()) out += line + "\n";
  }
  if (!s.unset.empty()) out += cat({"unset ", join(s.unset, " "), "\n"});
  return out;
}

std::string selection_to_dotenv(const Selection& s) {
  std::string out;
  for (const auto& [k, v] : s.env) out += cat({k, "=", dotenv_quote(v), "\n"});
  // A dotenv file cannot remove a variable: say which ones the consumer must not pass on.
  if (!s.unset.empty()) out += cat({"# unset before use: ", join(s.unset, " "), "\n"});
  return out;
}

nlohmann::ordered_json selection_to_json(const Selection& s) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.selection/v1";
  j["vendor"] = s.vendor;
  j["backend"] = s.backend;
  auto devices = nlohmann::ordered_json::array();
  auto partitions = nlohmann::ordered_json::array();
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const auto* p = s.partition_of(i);
    devices.push_back(p ? p->id : s.devices[i].pci.address.str());
    if (!p) continue;
    nlohmann::ordered_json pj{{"id", p->id},
                              {"index", p->index},
                              {"parent", s.devices[i].pci.address.str()},
                              {"parent_index", s.devices[i].index}};
    if (p->profile) pj["profile"] = *p->profile;
    partitions.push_back(pj);
  }
  j["devices"] = devices;
  // Only where partitions were chosen: a host without them keeps its output.
  if (!partitions.empty()) j["partitions"] = partitions;
  auto env = nlohmann::ordered_json::object();
  for (const auto& [k, v] : s.env) env[k] = v;
  j["env"] = env;
  if (!s.unset.empty()) j["unset"] = s.unset;
  j["torch_device"] = s.torch_device;
  j["dist_backend"] = s.dist_backend;
  j["num_workers"] = s.num_workers;
  if (s.priority) j["policy_priority"] = *s.priority;
  j["reasons"] = s.reasons;
  // Only where a policy's criteria turned units down: a selection without them keeps its output.
  if (!s.rejected.empty()) {
    auto rejected = nlohmann::ordered_json::array();
    for (const auto& r : s.rejected) {
      nlohmann::ordered_json rj{{"device", r.unit}, {"vendor", r.vendor}};
      if (r.priority) rj["policy_priority"] = *r.priority;
      rj["reason"] = r.reason;
      rejected.push_back(rj);
    }
    j["rejected"] = rejected;
  }
  if (!s.warnings.empty()) j["warnings"] = s.warnings;
  return j;
}

}  // namespace anygpu
