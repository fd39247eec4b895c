#include "vendorlib/apis.h"

#include "vendorlib/dcmi/dcmi.h"
#include "vendorlib/level_zero/level_zero.h"
#include "vendorlib/nvml/nvml.h"
#include "vendorlib/rocm_smi/rocm_smi.h"

namespace anygpu {

namespace {

using enum MergeRule;

// {api, init symbol, probe, health reader, sampler, merge rule, adds to kernel}; see apis.h.
constexpr LibraryApi kApis[] = {
    {"nvml", "nvmlInit_v2", nvml::probe, nvml::read_health, nvml::make_sampler, library_wins},
    // Iluvatar's libixml exports NVML's names and types: NVML's calls apply to it as they are.
    {"ixml", "nvmlInit_v2", nvml::probe, nvml::read_health, nvml::make_sampler, library_wins},
    {"rocm-smi", "rsmi_init", rsmi::probe},
    {"hy-smi", "rsmi_init", rsmi::probe},  // Hygon's fork of ROCm SMI
    // zesInit only from loader 1.5 (spec 1.5): zeInit is what every loader has.
    {"level-zero", "zeInit", ze::probe, ze::read_health, ze::make_sampler, fill_absent, true},
    {"amd-smi", "amdsmi_init"},
    // In discovery only for what the kernel does not show (HCCS links, vNPU templates).
    {"dcmi", "dcmi_init", dcmi::probe, dcmi::read_health, dcmi::make_sampler, library_wins, true},
    {"cndev", "cndevInit"},
    {"mtml", "mtmlLibraryInit"},
    {"mxsml", "mxSmlInit"},
    {"efml", "EfmlInit"},
    {"xpu-smi", ""},
    {"xpuml", ""},
    {"hlml", "hlml_init"},
};

}  // namespace

std::span<const LibraryApi> library_apis() {
  return kApis;
}

const LibraryApi* find_library_api(std::string_view api) {
  for (const auto& e : kApis)
    if (e.api == api) return &e;
  return nullptr;
}

bool answers_health(std::string_view api) {
  const auto* e = find_library_api(api);
  return e && e->health;
}

}  // namespace anygpu
