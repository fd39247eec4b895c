// The two shapes a metrics backend with a vendor library takes. The library runs in a
// long-lived worker (remote_library.h); these classes add identity, the kernel's values where
// they are read too, and turn a worker that crashed, exited or hung into a backend that is down
// (the library alone) or into the kernel's values alone (the library added to the kernel).
#include <atomic>

#include "metrics/backend.h"
#include "metrics/partition_samples.h"
#include "metrics/remote_library.h"

namespace anygpu {

namespace {

// The vendor's one source (NVML): a library that cannot init is retried after the backoff.
class LibraryBackend final : public MetricsBackend {
 public:
  LibraryBackend(HostRoot host, std::string vendor, const LibrarySpec& library,
                 std::vector<Device> devices)
      : vendor_(std::move(vendor)),
        source_(library.api),
        remote_(std::move(host), library, devices),
        devices_(std::move(devices)) {}

  const std::string& vendor() const override { return vendor_; }
  const std::string& source() const override { return source_; }
  std::vector<DeviceSample> identities() const override {
    std::vector<DeviceSample> out;
    for (const auto& d : devices_) out.push_back(identity_of(d));
    return out;
  }
  std::optional<LibraryWorkerStatus> library_status() const override { return remote_.status(); }

  Result<std::vector<DeviceSample>> sample() override {
    auto values = remote_.sample();
    if (values.answer == RemoteLibrary::Answer::down) return host_error(values.message);
    std::vector<DeviceSample> out;
    for (size_t i = 0; i < devices_.size(); ++i) {
      auto s = identity_of(devices_[i]);
      if (devices_[i].status == DeviceStatus::suspended)
        s.warnings.push_back("runtime-suspended: not sampled");
      else if (i < values.samples.size()) {
        auto partitions = std::move(values.samples[i].partitions);
        merge_library_values(s, std::move(values.samples[i]), MergeRule::library_wins);
        attach_partition_samples(s, std::move(partitions), devices_[i], source_);
      }
      out.push_back(std::move(s));
    }
    return out;
  }

 private:
  std::string vendor_, source_;
  RemoteLibrary remote_;
  std::vector<Device> devices_;
};

// The kernel's reader plus the library (Level Zero on sysfs, DCMI on hwmon). The library only
// adds to what the kernel says: without it (missing, init failed, worker lost) the backend
// answers from the kernel alone, as on hosts without the library.
class KernelPlusLibraryBackend final : public MetricsBackend {
 public:
  KernelPlusLibraryBackend(HostRoot host, std::string vendor, std::string kernel_source,
                           const LibrarySpec& library, MergeRule merge, std::vector<Device> devices)
      : vendor_(vendor),
        kernel_source_(kernel_source),
        combined_source_(kernel_source + "+" + std::string(library.api)),
        merge_(merge),
        devices_(devices),
        remote_(host, library, devices_, true) {
    kernel_ = make_sysfs_backend(std::move(host), std::move(vendor), std::move(kernel_source),
                                 std::move(devices));
  }

  const std::string& vendor() const override { return vendor_; }
  // The kernel's source until the library has answered once, then "KERNEL+API".
  const std::string& source() const override {
    return library_up_ ? combined_source_ : kernel_source_;
  }
  std::vector<DeviceSample> identities() const override { return kernel_->identities(); }
  std::optional<LibraryWorkerStatus> library_status() const override { return remote_.status(); }

  Result<std::vector<DeviceSample>> sample() override {
    auto out = kernel_->sample();
    if (!out) return out;
    auto values = remote_.sample();
    if (values.answer != RemoteLibrary::Answer::sampled) return out;
    library_up_ = true;
    for (size_t i = 0; i < devices_.size() && i < out->size() && i < values.samples.size(); ++i)
      merge_library_values((*out)[i], std::move(values.samples[i]), merge_);
    return out;
  }

 private:
  std::string vendor_, kernel_source_, combined_source_;
  MergeRule merge_;
  std::vector<Device> devices_;
  RemoteLibrary remote_;
  std::shared_ptr<MetricsBackend> kernel_;
  std::atomic<bool> library_up_{false};
};

}  // namespace

std::shared_ptr<MetricsBackend> make_library_backend(HostRoot host, std::string vendor,
                                                     const LibrarySpec& library,
                                                     std::vector<Device> devices) {
  return std::make_shared<LibraryBackend>(std::move(host), std::move(vendor), library,
                                          std::move(devices));
}

std::shared_ptr<MetricsBackend> make_kernel_plus_library_backend(HostRoot host, std::string vendor,
                                                                 std::string kernel_source,
                                                                 const LibrarySpec& library,
                                                                 MergeRule merge,
                                                                 std::vector<Device> devices) {
  return std::make_shared<KernelPlusLibraryBackend>(std::move(host), std::move(vendor),
                                                    std::move(kernel_source), library, merge,
                                                    std::move(devices));
}

}  // namespace anygpu
