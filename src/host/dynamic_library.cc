#include "host/dynamic_library.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>

#include <string>

namespace anygpu {

Result<DynamicLibrary> DynamicLibrary::open(const std::string& path) {
  dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    return host_error(why ? std::string(why) : path + ": cannot be loaded");
  }
  return DynamicLibrary(h, path);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(other.handle_), path_(std::move(other.path_)) {
  other.handle_ = nullptr;
}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) ::dlclose(handle_);
    handle_ = other.handle_;
    path_ = std::move(other.path_);
    other.handle_ = nullptr;
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) ::dlclose(handle_);
}

std::string DynamicLibrary::loaded_from() const {
  std::string name = path_;
  struct link_map* map = nullptr;
  if (handle_ && ::dlinfo(handle_, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name &&
      *map->l_name)
    name = map->l_name;
  // l_name is the path given to dlopen (or found by the loader's search); show the real file.
  char buf[PATH_MAX];
  if (::realpath(name.c_str(), buf)) return buf;
  return name;
}

void* DynamicLibrary::raw_symbol(std::string_view name) const {
  if (!handle_) return nullptr;
  return ::dlsym(handle_, std::string(name).c_str());
}

}  // namespace anygpu
