#include "worker/locate.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <vector>

#include "host/paths.h"
#include "util/env_vars.h"
#include "util/strings.h"

#ifndef ANYGPU_INSTALL_WORKER
#define ANYGPU_INSTALL_WORKER ""
#endif
// The install layout relative to any prefix (CMAKE_INSTALL_LIBDIR, CMAKE_INSTALL_BINDIR).
#ifndef ANYGPU_INSTALL_LIBDIR
#define ANYGPU_INSTALL_LIBDIR ""
#endif
#ifndef ANYGPU_INSTALL_BINDIR
#define ANYGPU_INSTALL_BINDIR ""
#endif

namespace anygpu::worker {

namespace {

std::atomic<bool> g_self{false};

bool executable(const std::string& path) {
  return !path.empty() && path[0] == '/' && ::access(path.c_str(), X_OK) == 0;
}

// Directory of the object (executable or shared library) this function was linked into.
std::string own_directory() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void*>(&own_directory), &info) || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return path.substr(0, slash);
}

// PREFIX/BINDIR/anygpu when `dir` is PREFIX/LIBDIR: the CLI installed with this library, under
// whatever prefix it was installed (a venv, a DESTDIR-staged tree), not only the configured one.
std::string installed_beside(const std::string& dir) {
  std::string_view libdir = ANYGPU_INSTALL_LIBDIR, bindir = ANYGPU_INSTALL_BINDIR;
  if (libdir.empty() || bindir.empty() || libdir.front() == '/' || bindir.front() == '/') return {};
  std::string suffix = cat({"/", libdir});
  if (dir.size() <= suffix.size() || !dir.ends_with(suffix)) return {};
  return cat({std::string_view(dir).substr(0, dir.size() - suffix.size()), "/", bindir, "/anygpu"});
}

}  // namespace

void use_self_as_worker() {
  g_self.store(true);
}

Result<std::string> worker_executable() {
  if (g_self.load()) return std::string(paths::kSelfExe);
  std::vector<std::string> tried;
  auto env = read_env("ANYGPU_WORKER");  // the table's rule: an absolute path, executable
  if (!env) return env.error();
  if (*env) return (*env)->text;
  tried.push_back("$ANYGPU_WORKER (unset)");
  if (auto dir = own_directory(); !dir.empty()) {
    std::string beside = dir + "/anygpu";
    if (executable(beside)) return beside;
    tried.push_back(beside);
    if (std::string installed = installed_beside(dir); !installed.empty()) {
      if (executable(installed)) return installed;
      tried.push_back(installed);
    }
  }
  if (std::string installed = ANYGPU_INSTALL_WORKER; !installed.empty()) {
    if (executable(installed)) return installed;
    tried.push_back(installed);
  }
  return host_error("no library worker executable (tried " + join(tried, ", ") +
                    "); vendor libraries are not loaded in-process");
}

}  // namespace anygpu::worker
