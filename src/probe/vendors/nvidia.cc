// NVIDIA: the driver's procfs describes each GPU (model, UUID, device minor) without waking it.
#include "host/paths.h"
#include "probe/sysfs_parse.h"
#include "probe/vendors/backend.h"
#include "probe/vendors/nvidia_mig.h"
#include "util/strings.h"

namespace anygpu {

class NvidiaBackend final : public VendorBackend {
 public:
  void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const override {
    for (auto* d : devices) {
      auto& dev = d->device;
      std::string path = cat({paths::kNvidiaGpus, "/", dev.pci.address.str(), "/information"});
      auto text = ctx.host.read_file(path, kSmallFileBytes);
      if (!text) continue;  // driver not loaded, or nouveau
      auto info = parse_nvidia_information(*text);
      if (!info) {
        ctx.warn(path, info.error().message);
        continue;
      }
      if (info->model) dev.name = info->model;
      if (info->uuid) dev.uuid = info->uuid;
      if (info->minor) dev.minor = info->minor;
    }
    probe_mig_partitions(ctx, devices);
  }
};

// Constant-initialised at namespace scope: a function-local static has a one-time guard that
// a fork() in a C ABI caller can strand.
constinit const NvidiaBackend kNvidiaBackend;

const VendorBackend& nvidia_backend() {
  return kNvidiaBackend;
}

}  // namespace anygpu
