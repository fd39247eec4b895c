// ROCm SMI (librocm_smi64.so) and Hygon's fork of it: product name and VRAM size per device,
// matched to PCI functions by the BDF id the library reports.
#include "vendorlib/rocm_smi/rocm_smi.h"

#include <cstring>

#include "util/strings.h"
#include "vendorlib/rocm_smi/abi.h"

namespace anygpu {

void rsmi::probe(const DynamicLibrary& lib, LibraryResult& result) {
  auto init = lib.symbol<rsmi::InitFn>({"rsmi_init"});
  auto shutdown = lib.symbol<rsmi::ShutdownFn>({"rsmi_shut_down"});
  auto count = lib.symbol<rsmi::CountFn>({"rsmi_num_monitor_devices"});
  auto pci_id = lib.symbol<rsmi::PciIdFn>({"rsmi_dev_pci_id_get"});
  auto name = lib.symbol<rsmi::NameFn>({"rsmi_dev_name_get"});
  auto memory = lib.symbol<rsmi::MemoryTotalFn>({"rsmi_dev_memory_total_get"});
  auto& report = result.report;
  if (!init || !count || !pci_id) {
    report.status = LibraryStatus::error;
    report.message = "missing one of rsmi_init, rsmi_num_monitor_devices, rsmi_dev_pci_id_get";
    return;
  }
  if (auto r = init(0); r != rsmi::kSuccess) {
    report.status = LibraryStatus::error;
    report.message = "rsmi_init failed (" + std::to_string(r) + ")";
    return;
  }
  report.status = LibraryStatus::loaded;
  uint32_t n = 0;
  if (count(&n) != rsmi::kSuccess) n = 0;
  for (uint32_t i = 0; i < n && i < 1024; ++i) {
    uint64_t bdf = 0;
    if (pci_id(i, &bdf) != rsmi::kSuccess) continue;
    LibraryDeviceFacts f;
    f.address =
        PciAddress{static_cast<uint32_t>(bdf >> 32), static_cast<uint8_t>((bdf >> 8) & 0xff),
                   static_cast<uint8_t>((bdf >> 3) & 0x1f), static_cast<uint8_t>(bdf & 0x7)};
    char buf[256] = {};
    if (name && name(i, buf, sizeof buf) == rsmi::kSuccess) {
      buf[sizeof buf - 1] = '\0';
      if (*buf && is_printable_text(buf)) f.name = std::string(trim(buf));
    }
    if (uint64_t total = 0;
        memory && memory(i, rsmi::kMemTypeVram, &total) == rsmi::kSuccess && total)
      f.memory_total_bytes = total;
    result.devices.push_back(std::move(f));
  }
  if (shutdown) shutdown();
}

}  // namespace anygpu
