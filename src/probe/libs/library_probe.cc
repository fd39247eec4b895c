#include "probe/libs/library_probe.h"

#include "util/strings.h"
#include "vendorlib/level_zero/level_zero.h"
#include "vendorlib/nvml/nvml.h"
#include "vendorlib/rocm_smi/rocm_smi.h"

namespace anygpu {

namespace {

using ProbeFn = void (*)(const DynamicLibrary&, LibraryResult&);

struct ApiEntry {
  std::string_view api;
  ProbeFn probe;                 // null: located and checked, not called
  std::string_view init_symbol;  // proves the file is the library it claims to be
};

// The explicit table of supported APIs.
constexpr ApiEntry kApis[] = {
    {"nvml", nvml::probe, "nvmlInit_v2"},
    {"ixml", nvml::probe, "nvmlInit_v2"},  // Iluvatar exports NVML's names
    {"rocm-smi", rsmi::probe, "rsmi_init"},
    {"hy-smi", rsmi::probe, "rsmi_init"},
    {"level-zero", ze::probe, "zeInit"},  // zesInit only from loader 1.5 (spec 1.5)
    {"amd-smi", nullptr, "amdsmi_init"},
    {"dcmi", nullptr, "dcmi_init"},
    {"cndev", nullptr, "cndevInit"},
    {"mtml", nullptr, "mtmlLibraryInit"},
    {"mxsml", nullptr, "mxSmlInit"},
    {"efml", nullptr, "EfmlInit"},
    {"xpu-smi", nullptr, ""},
    {"xpuml", nullptr, ""},
    {"hlml", nullptr, "hlml_init"},
};

const ApiEntry* api_entry(std::string_view api) {
  for (const auto& e : kApis)
    if (e.api == api) return &e;
  return nullptr;
}

}  // namespace

bool speaks_nvml(std::string_view api) {
  const auto* e = api_entry(api);
  return e && e->probe == nvml::probe;
}

bool answers_health(std::string_view api) {
  return speaks_nvml(api) || api == "dcmi" || api == "level-zero";
}

LibraryRequest library_request(const Vendor& vendor, const LibrarySpec& spec) {
  return {std::string(vendor.id), std::string(spec.api),
          std::vector<std::string>(spec.sonames.begin(), spec.sonames.end()),
          std::vector<std::string>(spec.dirs.begin(), spec.dirs.end())};
}

namespace {

struct Names {
  std::vector<std::string_view> sonames, dirs;
  explicit Names(const LibraryRequest& r)
      : sonames(r.sonames.begin(), r.sonames.end()), dirs(r.dirs.begin(), r.dirs.end()) {}
};

LibraryResult start_result(const LibraryRequest& request) {
  LibraryResult r;
  r.report.vendor = request.vendor;
  r.report.api = request.api;
  return r;
}

}  // namespace

std::optional<LibraryResult> missing_without_loading(const HostRoot& host,
                                                     const LibraryRequest& request) {
  if (host.is_real_root()) return std::nullopt;
  Names n(request);
  if (host.find_library(n.sonames, n.dirs)) return std::nullopt;
  LibraryResult r = start_result(request);
  r.report.status = LibraryStatus::missing;
  r.report.message = join(request.sonames, ", ") + ": not found";
  return r;
}

LibraryResult probe_library(const HostRoot& host, const LibraryRequest& request) {
  LibraryResult r = start_result(request);
  Names n(request);
  const auto* api = api_entry(request.api);
  auto lib = host.open_library(n.sonames, n.dirs);
  if (!lib) {
    bool absent = !host.find_library(n.sonames, n.dirs).has_value();
    r.report.status = absent ? LibraryStatus::missing : LibraryStatus::error;
    if (!host.options().load_libraries) r.report.status = LibraryStatus::disabled;
    r.report.message = lib.error().message;
    return r;
  }
  r.report.path = (*lib)->loaded_from();
  if (api && !api->init_symbol.empty() && !(*lib)->raw_symbol(api->init_symbol)) {
    r.report.status = LibraryStatus::error;
    r.report.message = cat({"missing symbol ", api->init_symbol});
    return r;
  }
  if (!api || !api->probe) {
    r.report.status = LibraryStatus::found;
    return r;
  }
  api->probe(**lib, r);
  return r;
}

bool ends_search(const LibraryResult& result) {
  const auto* api = api_entry(result.report.api);
  return api && api->probe && result.report.status == LibraryStatus::loaded;
}

}  // namespace anygpu
