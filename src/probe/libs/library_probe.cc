#include "probe/libs/library_probe.h"

#include "util/strings.h"

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
    {"nvml", probe_nvml, "nvmlInit_v2"},
    {"ixml", probe_nvml, "nvmlInit_v2"},  // Iluvatar exports NVML's names
    {"rocm-smi", probe_rocm_smi, "rsmi_init"},
    {"hy-smi", probe_rocm_smi, "rsmi_init"},
    {"level-zero", probe_level_zero, "zeInit"},  // zesInit only from loader 1.5 (spec 1.5)
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

std::vector<LibraryResult> probe_vendor_libraries(const HostRoot& host, const Vendor& vendor) {
  std::vector<LibraryResult> results;
  for (const auto& spec : vendor.libraries) {
    LibraryResult r;
    r.report.vendor = std::string(vendor.id);
    r.report.api = std::string(spec.api);
    const auto* api = api_entry(spec.api);
    auto lib = host.open_library(spec.sonames, spec.dirs);
    if (!lib) {
      bool absent = !host.find_library(spec.sonames, spec.dirs).has_value();
      r.report.status = absent ? "missing" : "error";
      if (!host.options().load_libraries) r.report.status = "disabled";
      r.report.message = lib.error().message;
      results.push_back(std::move(r));
      continue;
    }
    r.report.path = (*lib)->loaded_from();
    if (api && !api->init_symbol.empty() && !(*lib)->raw_symbol(api->init_symbol)) {
      r.report.status = "error";
      r.report.message = cat({"missing symbol ", api->init_symbol});
      results.push_back(std::move(r));
      continue;
    }
    if (!api || !api->probe) {
      r.report.status = "found";
      results.push_back(std::move(r));
      continue;
    }
    api->probe(**lib, r);
    bool loaded = r.report.status == "loaded";
    results.push_back(std::move(r));
    if (loaded) break;
  }
  return results;
}

}  // namespace anygpu
