#include "capi/env_json.h"

#include <algorithm>
#include <cstdlib>

#include "cluster/hostlist.h"
#include "cluster/tasks_per_node.h"
#include "registry/cpu_fallback.h"
#include "registry/registry.h"
#include "util/strings.h"

namespace anygpu::capi {

namespace {

// The registry's torch device types in registry order, then cpu: what Python's TORCH_DEVICES
// holds (registry_emit.cc writes it from the same vendors).
std::string torch_devices() {
  std::vector<std::string> types;
  auto add = [&](std::string_view t) {
    if (!t.empty() && std::find(types.begin(), types.end(), t) == types.end())
      types.emplace_back(t);
  };
  for (const auto& v : Registry::builtin().vendors()) add(v.torch_device);
  add(kCpuTorchDevice);
  return join(types, ", ");
}

std::string accepted(const EnvVariable& row) {
  if (row.kind == EnvKind::torch_device) return cat({row.accepted, " (", torch_devices(), ")"});
  return std::string(row.accepted);
}

// util's verdict, then the check of the kinds util cannot see, worded as cluster/slurm_env.cc
// words it for `anygpu run`.
Result<std::optional<EnvValue>> judge(const EnvVariable& row, std::string_view value,
                                      nlohmann::ordered_json& out) {
  auto parsed = parse_env_value(row, value);
  if (!parsed || !*parsed) return parsed;
  if (row.kind == EnvKind::torch_device) {
    const std::string known = torch_devices();  // split() returns views into it
    bool found = false;
    for (auto t : split(known, ',')) found = found || trim(t) == value;
    if (!found) return bad_input(env_refusal(row.name, value, cat({"expected ", accepted(row)})));
  } else if (row.kind == EnvKind::hostlist) {
    auto hosts = expand_hostlist(value);
    if (!hosts) return bad_input(cat({row.name, ": ", hosts.error().message}));
    if (hosts->empty()) return bad_input(env_refusal(row.name, value, "names no node"));
    out["first"] = hosts->front();
  } else if (row.kind == EnvKind::tasks_per_node) {
    auto counts = parse_tasks_per_node(value);
    if (!counts) return bad_input(cat({row.name, ": ", counts.error().message}));
  }
  return parsed;
}

nlohmann::ordered_json readers(unsigned bits) {
  auto list = nlohmann::ordered_json::array();
  if (bits & kEnvCli) list.push_back("cli");
  if (bits & kEnvCAbi) list.push_back("c-abi");
  if (bits & kEnvPython) list.push_back("python");
  return list;
}

nlohmann::ordered_json row_document(const EnvVariable& row, const char* value) {
  nlohmann::ordered_json j{
      {"name", row.name},     {"kind", env_kind_name(row.kind)}, {"readers", readers(row.readers)},
      {"steers", row.steers}, {"accepted", accepted(row)},       {"meaning", row.meaning}};
  if (row.kind == EnvKind::integer || row.kind == EnvKind::indices) {
    j["min"] = row.min;
    j["max"] = row.max;
  }
  if (row.kind == EnvKind::keyword) {
    auto words = nlohmann::ordered_json::array();
    for (auto w : split(row.words, ' ')) words.push_back(w);
    j["words"] = words;
  }
  j["set"] = value != nullptr;
  if (!value) return j;
  j["value"] = value;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  auto verdict = judge(row, value, extra);
  if (!verdict) {
    j["error"] = verdict.error().message;
    return j;
  }
  if (*verdict && (*verdict)->number) j["number"] = *(*verdict)->number;
  if (*verdict && (*verdict)->flag) j["flag"] = *(*verdict)->flag;
  j.update(extra);
  return j;
}

}  // namespace

Result<nlohmann::ordered_json> environment_document(
    const std::optional<std::map<std::string, std::string>>& given,
    const std::optional<std::vector<std::string>>& names) {
  if (names)
    for (const auto& n : *names)
      if (!find_env_variable(n))
        return bad_input(
            cat({"names: '", escape_control(n), "' is not an environment variable anygpu reads"}));
  auto variables = nlohmann::ordered_json::array();
  for (const auto& row : env_variables()) {
    std::string name(row.name);
    if (names && std::find(names->begin(), names->end(), name) == names->end()) continue;
    const char* value = nullptr;
    if (given) {
      auto it = given->find(name);
      value = it == given->end() ? nullptr : it->second.c_str();
    } else {
      value = std::getenv(name.c_str());
    }
    variables.push_back(row_document(row, value));
  }
  return nlohmann::ordered_json{{"schema", "anygpu.environment/v1"}, {"variables", variables}};
}

}  // namespace anygpu::capi
