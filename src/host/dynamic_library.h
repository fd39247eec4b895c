// Move-only RAII owner of a dlopen handle. Symbols are looked up by a list of names so a
// versioned entry point (`nvmlInit_v2`) can fall back to its older name.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu {

class DynamicLibrary {
 public:
  // RTLD_NOW | RTLD_LOCAL: a vendor library's symbols never leak into the global namespace.
  static Result<DynamicLibrary> open(const std::string& path);

  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  const std::string& path() const { return path_; }
  // The real file behind the handle (soname symlinks resolved), for reports.
  std::string loaded_from() const;
  void* raw_symbol(std::string_view name) const;

  // First of `names` that the library exports, cast to the function type F.
  template <class F>
  F symbol(std::initializer_list<std::string_view> names) const {
    for (auto n : names)
      if (void* p = raw_symbol(n)) return reinterpret_cast<F>(p);
    return nullptr;
  }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace anygpu
