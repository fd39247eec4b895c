// Host options (root, vendor libraries, library deadline) validated once for every entry point.
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "host/host_root.h"
#include "util/strings.h"

namespace anygpu {

namespace {

Result<std::chrono::milliseconds> timeout_value(std::string_view name, std::string_view text,
                                                std::optional<long long> value) {
  if (!value || *value < 1 || *value > kMaxLibraryTimeoutMs)
    return bad_input(cat({name, ": expected milliseconds 1..", std::to_string(kMaxLibraryTimeoutMs),
                          ", got '", text, "'"}));
  return std::chrono::milliseconds(*value);
}

Result<bool> root_checked(std::string_view name, const std::string& root) {
  if (root.empty())
    return bad_input(cat({name, ": empty path (give a directory, or omit it for the real host)"}));
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0)
    return bad_input(cat({name, " ", root, ": not a directory (", std::strerror(errno), ")"}));
  if (!S_ISDIR(st.st_mode)) return bad_input(cat({name, " ", root, ": not a directory"}));
  return true;
}

}  // namespace

Result<HostOptions> HostOptions::from_environment() {
  HostOptions o;
  // An empty variable is an unset one, as shells and container runtimes treat it.
  if (const char* r = std::getenv("ANYGPU_ROOT"); r && *r) o.root = r;
  if (const char* n = std::getenv("ANYGPU_NO_LIBS"); n && *n) {
    std::string v = to_lower(n);
    if (v == "1" || v == "true" || v == "yes")
      o.load_libraries = false;
    else if (v != "0" && v != "false" && v != "no")
      return bad_input(cat({"ANYGPU_NO_LIBS: expected 1 or 0, got '", n, "'"}));
  }
  if (const char* t = std::getenv("ANYGPU_LIB_TIMEOUT_MS"); t && *t) {
    auto ms = parse_uint(t);
    auto v = timeout_value("ANYGPU_LIB_TIMEOUT_MS", t,
                           ms && *ms <= 1u << 30 ? std::optional<long long>(*ms) : std::nullopt);
    if (!v) return v.error();
    o.library_timeout = *v;
  }
  return o;
}

Result<HostOptions> resolve_host_options(const HostOptionRequest& request) {
  bool cli = request.spelling == HostOptionRequest::Spelling::cli;
  auto opts = HostOptions::from_environment();
  if (!opts) return opts;
  std::string_view root_name = "ANYGPU_ROOT";
  if (request.root) {
    opts->root = *request.root;
    root_name = cli ? "--root" : "root";
  }
  if (request.no_libs) opts->load_libraries = !*request.no_libs;
  if (request.lib_timeout_ms) {
    auto text = std::to_string(*request.lib_timeout_ms);
    auto v = timeout_value(cli ? "--lib-timeout" : "lib_timeout_ms", text, request.lib_timeout_ms);
    if (!v) return v.error();
    opts->library_timeout = *v;
  }
  if (request.root || opts->root != "/") {
    auto ok = root_checked(root_name, opts->root);
    if (!ok) return ok.error();
  }
  return opts;
}

}  // namespace anygpu
