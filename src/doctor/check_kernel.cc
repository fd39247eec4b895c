// The running kernel against the installed ROCm's supported kernels. The minimum is the
// oldest kernel among the distributions the ROCm release's compatibility matrix lists.
#include <array>
#include <cctype>

#include "doctor/checks.h"
#include "util/strings.h"

namespace anygpu {

namespace {

struct RocmKernelMinimum {
  int rocm_major, rocm_minor;  // first release the row applies to
  int kernel_major, kernel_minor;
  std::string_view oldest;  // the distribution kernel it comes from
};

// https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html (and the matrices
// of past releases, "Operating systems & kernels"): ROCm 6.x supports RHEL 8.x (4.18), the
// oldest kernel of its matrix; ROCm 7.0 lists RHEL 9/10, SLES 15 SP6+ and Ubuntu 22.04/24.04,
// whose oldest kernel is RHEL 9's 5.14. ROCm 5.x: RHEL 8 / SLES 15 (4.18).
constexpr std::array<RocmKernelMinimum, 3> kTable = {{
    {5, 0, 4, 18, "RHEL 8 (4.18)"},
    {6, 0, 4, 18, "RHEL 8.x (4.18)"},
    {7, 0, 5, 14, "RHEL 9.x (5.14)"},
}};

std::optional<std::pair<int, int>> major_minor(std::string_view text) {
  auto parts = split(text, '.');
  if (parts.size() < 2) return std::nullopt;
  auto minor_text = parts[1];
  size_t digits = 0;
  while (digits < minor_text.size() && std::isdigit(static_cast<unsigned char>(minor_text[digits])))
    ++digits;
  auto a = parse_int(parts[0]), b = parse_int(minor_text.substr(0, digits));
  if (!a || !b) return std::nullopt;
  return std::pair<int, int>(static_cast<int>(*a), static_cast<int>(*b));
}

}  // namespace

std::vector<Finding> check_kernel_for_rocm(const DoctorContext& ctx) {
  const auto& kernel_text = ctx.inventory.host.kernel;
  if (!kernel_text) return {};
  auto kernel = major_minor(*kernel_text);
  if (!kernel) return {};
  for (const auto& rt : ctx.inventory.runtimes) {
    if (rt.component != "rocm") continue;
    auto rocm = major_minor(rt.version);
    if (!rocm) continue;
    const RocmKernelMinimum* row = nullptr;
    for (const auto& r : kTable)
      if (std::pair(rocm->first, rocm->second) >= std::pair(r.rocm_major, r.rocm_minor)) row = &r;
    if (!row || *kernel >= std::pair(row->kernel_major, row->kernel_minor)) continue;
    auto min = cat({std::to_string(row->kernel_major), ".", std::to_string(row->kernel_minor)});
    return {{"kernel.too-old-for-rocm", Severity::error,
             cat({"kernel ", *kernel_text, " is older than ROCm ", rt.version, " supports"}),
             cat({"ROCm ", rt.version, " (", rt.source, ") supports kernels from ", min,
                  " (oldest in its compatibility matrix: ", row->oldest, "); this host runs ",
                  *kernel_text,
                  ". amdgpu's KFD interface may lack what the runtime needs: "
                  "hipInit fails or devices are missing."}),
             cat({"boot a kernel >= ", min,
                  " (e.g. the distribution's HWE kernel), or install a ROCm release that "
                  "supports this one"})}};
  }
  return {};
}

}  // namespace anygpu
