// The C ABI: JSON in, JSON out, no C++ types or exceptions across the boundary.
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "anygpu.h"
#include "host/host_root.h"
#include "probe/probe.h"
#include "render/inventory_json.h"
#include "render/json_text.h"

#ifndef ANYGPU_VERSION
#define ANYGPU_VERSION "0.0.0"
#endif

namespace {

char* dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

char* error_document(const std::string& message, int exit_code) {
  nlohmann::ordered_json j{
      {"schema", "anygpu.error/v1"}, {"error", message}, {"exit_code", exit_code}};
  return dup(anygpu::dump_json(j, false));
}

// Options from the JSON argument, falling back to the environment.
anygpu::Result<anygpu::HostOptions> parse_options(const char* options_json) {
  auto opts = anygpu::HostOptions::from_environment();
  if (!opts || !options_json || !*options_json) return opts;
  auto j = nlohmann::json::parse(options_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return anygpu::bad_input("options: not a JSON object");
  for (auto& [key, value] : j.items()) {
    if (key == "root" && value.is_string()) {
      opts->root = value.get<std::string>();
    } else if (key == "no_libs" && value.is_boolean()) {
      opts->load_libraries = !value.get<bool>();
    } else if (key == "lib_timeout_ms" && value.is_number_unsigned() && value.get<uint64_t>() > 0 &&
               value.get<uint64_t>() <= 600000) {
      opts->library_timeout = std::chrono::milliseconds(value.get<uint64_t>());
    } else {
      return anygpu::bad_input("options: unknown key or wrong type: '" + key + "'");
    }
  }
  return opts;
}

}  // namespace

extern "C" char* anygpu_detect_json(const char* options_json) {
  try {
    auto opts = parse_options(options_json);
    if (!opts) return error_document(opts.error().message, 2);
    anygpu::HostRoot host(*opts);
    return dup(anygpu::dump_json(anygpu::inventory_to_json(anygpu::probe(host)), false));
  } catch (const std::exception& e) {
    return error_document(e.what(), 1);
  }
}

extern "C" void anygpu_free(char* document) {
  std::free(document);
}

extern "C" const char* anygpu_version(void) {
  return ANYGPU_VERSION;
}
