#include "host/host_options.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "util/strings.h"

namespace anygpu {

namespace {

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

Result<HostOptions> resolve_host_options(const HostOptionRequest& request) {
  bool cli = request.spelling == HostOptionRequest::Spelling::cli;
  auto opts = HostOptions::from_environment();
  if (!opts) return opts;
  if (request.root) opts->root = *request.root;
  if (request.no_libs) opts->load_libraries = !*request.no_libs;
  if (auto ms = request.lib_timeout_ms) {
    if (*ms < 1 || *ms > kMaxLibraryTimeoutMs)
      return bad_input(
          cat({cli ? "--lib-timeout" : "lib_timeout_ms", ": expected milliseconds 1..",
               std::to_string(kMaxLibraryTimeoutMs), ", got '", std::to_string(*ms), "'"}));
    opts->library_timeout = std::chrono::milliseconds(*ms);
  }
  // ANYGPU_ROOT was checked as it was read (from_environment).
  if (request.root) {
    auto ok = root_checked(cli ? "--root" : "root", opts->root);
    if (!ok) return ok.error();
  }
  return opts;
}

}  // namespace anygpu
