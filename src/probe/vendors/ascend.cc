// Ascend: /dev/davinciN is numbered by the NPU's physical id, which the driver exposes as the
// PCI device's `dev_id` attribute and which does not follow PCI bus order on Atlas servers.
#include "probe/vendors/backend.h"
#include "util/strings.h"

namespace anygpu {

class AscendBackend final : public VendorBackend {
 public:
  void probe_kernel(const ProbeContext& ctx, std::vector<PciDevice*>& devices) const override {
    for (auto* d : devices) {
      auto& dev = d->device;
      std::string path = d->sysfs_dir + "/dev_id";
      if (auto text = ctx.host.read_value(path)) {
        auto id = parse_uint(*text);
        if (id && *id < 1024)
          dev.minor = static_cast<int>(*id);
        else
          ctx.warn(path, cat({"invalid NPU id '", *text, "'"}));
      }
      // Without dev_id, the driver numbers NPUs in probe order, which is PCI order.
      if (!dev.minor) dev.minor = dev.index;
    }
  }
};

// Constant-initialised at namespace scope: a function-local static has a one-time guard that
// a fork() in a C ABI caller can strand.
constinit const AscendBackend kAscendBackend;

const VendorBackend& ascend_backend() {
  return kAscendBackend;
}

}  // namespace anygpu
