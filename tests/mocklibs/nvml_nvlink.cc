// Mock NVML with NVLink, for the h100-8x fixture: an HGX H100 8-GPU board, where every GPU has 18
// NVLink 4 links, all to the board's four third-generation NVSwitches (5, 4, 4 and 5 links per
// switch; NVIDIA's DGX H100 system guide and Hopper architecture paper), none GPU to GPU —
// `nvidia-smi topo -m` shows NV18 between every two GPUs (NVIDIA/nccl #1453). Links 18-35 do not
// exist (INVALID_ARGUMENT, as for any link index the GPU lacks). The switches' PCI addresses
// 0000:05-08:00.0 are this mock's own (the fixture's sysfs does not list the switches).
//
// MOCK_NVML_NVLINK picks a damaged or different layout for the tests:
//   mesh        GPUs 0-3 pairwise: 0-1 and 2-3 with 2 links, every other pair of 0-3 with 1
//               (DGX-1 V100's hybrid cube mesh within one quad); GPUs 4-7 without NVLink
//   no-type     "switch", but nvmlDeviceGetNvLinkRemoteDeviceType answers NOT_SUPPORTED
//   bad-remote  mesh, but GPU 0's link 0 names 0000:77:00.0 (no device) and link 1 itself
//   asymmetric  mesh, but GPU 1 reports one link to GPU 0 fewer than GPU 0 reports to it
//   absurd      mesh, but GPUs 2 and 3 report 30 links to each other
//   state-error nvmlDeviceGetNvLinkState fails with UNKNOWN on GPU 5 link 0
#include <cstdlib>
#include <string_view>

#include "mock_nvml_common.h"

namespace {

using anygpu::nvml::Device;
using anygpu::nvml::PciInfo;
using anygpu::nvml::Return;

constexpr Return kErrorUnknown = 999;  // NVML_ERROR_UNKNOWN

std::string_view layout() {
  const char* v = std::getenv("MOCK_NVML_NVLINK");
  return v ? v : "switch";
}

bool mesh_like() {
  auto l = layout();
  return l == "mesh" || l == "bad-remote" || l == "asymmetric" || l == "absurd";
}

// The far end of `link` on GPU `gpu`: another GPU's index, or -1-(switch) for switch s, or
// kNone when the link does not exist.
constexpr int kNone = -100;
constexpr int kSelf = -50;
constexpr int kNowhere = -60;

int far_end(unsigned gpu, unsigned link) {
  if (!mesh_like()) {
    if (link >= 18) return kNone;
    int s = link < 5 ? 0 : link < 9 ? 1 : link < 13 ? 2 : 3;
    return -1 - s;
  }
  if (gpu >= 4) return kNone;
  if (layout() == "bad-remote" && gpu == 0 && link < 2) return link == 0 ? kNowhere : kSelf;
  // Per GPU of the quad: links to its partner (2) then one to each other member.
  unsigned partner = gpu ^ 1u;
  unsigned others[2] = {gpu ^ 2u, gpu ^ 3u};
  if (layout() == "absurd" && gpu >= 2) return link < 30 ? static_cast<int>(partner) : kNone;
  unsigned to_partner = layout() == "asymmetric" && gpu == 1 ? 1 : 2;
  if (link < to_partner) return static_cast<int>(partner);
  if (link - to_partner < 2) return static_cast<int>(others[link - to_partner]);
  return kNone;
}

void fill(PciInfo* pci, unsigned domain, unsigned bus, unsigned device) {
  std::memset(pci, 0, sizeof *pci);
  pci->domain = domain, pci->bus = bus, pci->device = device;
  std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", domain, bus, device);
  std::snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain, bus, device);
}

}  // namespace

MOCK_NVML_EXPORT Return nvmlInit_v2() {
  mock_nvml::mark_initialized();
  return anygpu::nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetNvLinkState(Device dev, unsigned int link,
                                                 anygpu::nvml::EnableState* active) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !active || link >= anygpu::nvml::kNvLinkMaxLinks) return kErrorInvalidArgument;
  if (layout() == "state-error" && dev->index == 5 && link == 0) return kErrorUnknown;
  int end = far_end(dev->index, link);
  if (end == kNone) return kErrorInvalidArgument;
  *active = anygpu::nvml::kFeatureEnabled;
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetNvLinkRemotePciInfo_v2(Device dev, unsigned int link,
                                                            PciInfo* pci) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !pci || link >= anygpu::nvml::kNvLinkMaxLinks) return kErrorInvalidArgument;
  int end = far_end(dev->index, link);
  if (end == kNone) return kErrorInvalidArgument;
  if (end == kSelf) end = static_cast<int>(dev->index);
  if (end == kNowhere)
    fill(pci, 0, 0x77, 0);
  else if (end < 0)
    fill(pci, 0, 0x05 + static_cast<unsigned>(-1 - end), 0);
  else
    fill(pci, g_devices[end].domain, g_devices[end].bus, g_devices[end].device);
  return nvml::kSuccess;
}

MOCK_NVML_EXPORT Return nvmlDeviceGetNvLinkRemoteDeviceType(Device dev, unsigned int link,
                                                            anygpu::nvml::NvLinkDeviceType* type) {
  using namespace mock_nvml;
  if (!initialized()) return nvml::kErrorUninitialized;
  if (!valid(dev) || !type || link >= anygpu::nvml::kNvLinkMaxLinks) return kErrorInvalidArgument;
  if (layout() == "no-type") return nvml::kErrorNotSupported;
  int end = far_end(dev->index, link);
  if (end == kNone) return kErrorInvalidArgument;
  *type = end == kNowhere || end >= 0 || end == kSelf ? anygpu::nvml::kNvLinkDeviceGpu
                                                      : anygpu::nvml::kNvLinkDeviceSwitch;
  return nvml::kSuccess;
}

static_assert(std::is_same_v<decltype(&nvmlDeviceGetNvLinkState), anygpu::nvml::NvLinkStateFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetNvLinkRemotePciInfo_v2),
                             anygpu::nvml::NvLinkRemotePciFn>);
static_assert(std::is_same_v<decltype(&nvmlDeviceGetNvLinkRemoteDeviceType),
                             anygpu::nvml::NvLinkRemoteTypeFn>);
