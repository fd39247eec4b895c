// The C ABI: JSON in, JSON out, no C++ types or exceptions across the boundary.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "anygpu.h"
#include "app/on_host.h"
#include "capi/env_json.h"
#include "host/host_options.h"
#include "host/host_root.h"
#include "probe/probe.h"
#include "registry/registry_override.h"
#include "registry/wheel_data.h"
#include "render/inventory_json.h"
#include "render/json_text.h"
#include "select/render.h"
#include "util/env_vars.h"
#include "util/exit_codes.h"
#include "util/regular_file.h"

#ifndef ANYGPU_VERSION
#define ANYGPU_VERSION "0.0.0"
#endif

namespace {

char* dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// Every document carries "warnings", as the CLI's do: what discovery went on without may be
// why a call failed.
char* document(nlohmann::ordered_json j, const anygpu::Diagnostics& diagnostics) {
  j["warnings"] = diagnostics.warnings();
  return dup(anygpu::dump_json(j, false));
}

// `variable`: the environment variable refused, for callers that raise a typed error on it.
char* error_document(const std::string& message, int exit_code,
                     const anygpu::Diagnostics& diagnostics = {},
                     const std::string& variable = "") {
  nlohmann::ordered_json j{
      {"schema", "anygpu.error/v1"}, {"error", message}, {"exit_code", exit_code}};
  if (!variable.empty()) j["variable"] = variable;
  return document(std::move(j), diagnostics);
}

// What every call checks first, in the CLI's order at start: the registry ANYGPU_REGISTRY
// names (invalid: every call says so), then every variable that steers anygpu, judged by the
// table the CLI uses (util/env_vars.h). The error document (naming a refused variable), or null.
char* refused_registry() {
  if (auto registry = anygpu::prepare_registry(); !registry)
    return error_document(registry.error().message, anygpu::exit_code_for(registry.error().kind),
                          {}, anygpu::kRegistryEnv);
  return nullptr;
}

char* refused_setup() {
  if (char* refused = refused_registry()) return refused;
  if (auto wheels = anygpu::prepare_wheel_data(); !wheels)
    return error_document(wheels.error().message, anygpu::exit_code_for(wheels.error().kind), {},
                          anygpu::kWheelsEnv);
  std::string variable;
  auto env = anygpu::check_steering_env(&variable);
  if (env) return nullptr;
  return error_document(env.error().message, anygpu::exit_code_for(env.error().kind), {}, variable);
}

// Options from the JSON argument, validated exactly as the CLI validates its flags (one
// resolve_host_options). `extra` takes the keys of one call beyond the host options (it
// returns false for a key it does not know).
using ExtraKey = std::function<bool(const std::string&, const nlohmann::json&)>;
anygpu::Result<anygpu::HostOptions> parse_options(const char* options_json,
                                                  const ExtraKey& extra = nullptr) {
  anygpu::HostOptionRequest request;
  request.spelling = anygpu::HostOptionRequest::Spelling::json;
  if (options_json && *options_json) {
    auto j = nlohmann::json::parse(options_json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return anygpu::bad_input("options: not a JSON object");
    for (auto& [key, value] : j.items()) {
      if (key == "root" && value.is_string()) {
        request.root = value.get<std::string>();
      } else if (key == "no_libs" && value.is_boolean()) {
        request.no_libs = value.get<bool>();
      } else if (key == "lib_timeout_ms" && value.is_number_integer()) {
        // Out-of-range values reach the shared validation, which names the range.
        request.lib_timeout_ms = value.is_number_unsigned() && value.get<uint64_t>() > (1u << 30)
                                     ? anygpu::kMaxLibraryTimeoutMs + 1
                                     : value.get<long long>();
      } else if (extra && extra(key, value)) {
        continue;
      } else {
        return anygpu::bad_input("options: unknown key or wrong type: '" + key + "'");
      }
    }
  }
  return anygpu::resolve_host_options(request);
}

// A read that failed for want of descriptors or memory during the call, even one taken as
// "absent" below, makes the document incomplete: the call answers with an error instead. The
// count is per process, so a thread running out at the same time fails its neighbours' calls
// too (they ran in the same starved process).
char* unless_starved(uint64_t before, char* document) {
  if (anygpu::resource_error_count() == before) return document;
  std::free(document);
  return error_document(anygpu::resource_error_summary() + "; the answer would be incomplete",
                        anygpu::kExitHostLacks);
}

}  // namespace

extern "C" char* anygpu_detect_json(const char* options_json) {
  uint64_t resource_errors = anygpu::resource_error_count();
  try {
    if (char* refused = refused_setup()) return refused;
    auto opts = parse_options(options_json);
    if (!opts)
      return error_document(opts.error().message, anygpu::exit_code_for(opts.error().kind));
    anygpu::HostRoot host(*opts);
    auto inventory = anygpu::probe(host);
    return unless_starved(resource_errors,
                          document(anygpu::inventory_to_json(inventory), inventory.diagnostics));
  } catch (const std::exception& e) {
    return error_document(e.what(), anygpu::kExitCheckFailed);
  }
}

extern "C" char* anygpu_select_json(const char* options_json) {
  uint64_t resource_errors = anygpu::resource_error_count();
  try {
    if (char* refused = refused_setup()) return refused;
    anygpu::SelectRequest req;
    auto opts = parse_options(options_json, [&](const std::string& key, const nlohmann::json& v) {
      if (key == "config" && v.is_string()) {
        req.config_path = v.get<std::string>();
      } else if (key == "nproc_per_node" && v.is_number_unsigned() && v.get<uint64_t>() >= 1 &&
                 v.get<uint64_t>() <= 65536) {
        req.processes_per_node = static_cast<int>(v.get<uint64_t>());
      } else if (key == "python" && v.is_string()) {
        req.python = v.get<std::string>();
      } else {
        return false;
      }
      return true;
    });
    if (!opts)
      return error_document(opts.error().message, anygpu::exit_code_for(opts.error().kind));
    req.caller_env = anygpu::process_environment();
    anygpu::HostRoot host(*opts);
    anygpu::Diagnostics found;
    auto out = anygpu::select_on_host(host, req, found);
    if (!out)
      return error_document(out.error().message, anygpu::exit_code_for(out.error().kind), found);
    if (const auto* failed = out->failed_contract()) {
      std::string msg = "runtime contract " + failed->path + " failed:";
      for (const auto& c : failed->verdict.checks) {
        if (c.status != anygpu::CheckStatus::fail) continue;
        msg += " " + c.message;
        if (!c.suggestion.empty()) msg += " (" + c.suggestion + ")";
        msg += ";";
      }
      if (msg.back() == ';') msg.pop_back();
      return error_document(msg, anygpu::kExitCheckFailed, found);
    }
    return unless_starved(resource_errors,
                          document(anygpu::selection_to_json(*out->selection), found));
  } catch (const std::exception& e) {
    return error_document(e.what(), anygpu::kExitCheckFailed);
  }
}

extern "C" char* anygpu_environment_json(const char* options_json) {
  try {
    if (char* refused = refused_registry()) return refused;
    if (auto wheels = anygpu::prepare_wheel_data(); !wheels)
      return error_document(wheels.error().message, anygpu::exit_code_for(wheels.error().kind), {},
                            anygpu::kWheelsEnv);
    std::optional<std::map<std::string, std::string>> given;
    std::optional<std::vector<std::string>> names;
    if (options_json && *options_json) {
      auto j = nlohmann::json::parse(options_json, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return error_document("options: not a JSON object", anygpu::kExitUsage);
      for (auto& [key, value] : j.items()) {
        bool strings = value.is_object() || value.is_array();
        for (const auto& v : value) strings = strings && v.is_string();
        if (key == "environment" && value.is_object() && strings) {
          given = value.get<std::map<std::string, std::string>>();
        } else if (key == "names" && value.is_array() && strings) {
          names = value.get<std::vector<std::string>>();
        } else {
          return error_document("options: unknown key or wrong type: '" + key + "'",
                                anygpu::kExitUsage);
        }
      }
    }
    auto doc = anygpu::capi::environment_document(given, names);
    if (!doc) return error_document(doc.error().message, anygpu::exit_code_for(doc.error().kind));
    return dup(anygpu::dump_json(*doc, false));
  } catch (const std::exception& e) {
    return error_document(e.what(), anygpu::kExitCheckFailed);
  }
}

extern "C" void anygpu_free(char* document) {
  std::free(document);
}

extern "C" const char* anygpu_version(void) {
  return ANYGPU_VERSION;
}
