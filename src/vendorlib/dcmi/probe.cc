// DCMI in discovery: what the kernel does not show about Ascend NPUs. Which NPUs are joined by
// HCCS (one dcmi_get_topo_info_by_device_id per ordered pair of chips) and what each vNPU is
// (its template, AI Cores and memory, from dcmi_get_device_info's vdev management commands).
// Nothing is named or sized here: the kernel's facts do that.
#include <algorithm>
#include <cstring>

#include "util/strings.h"
#include "vendorlib/dcmi/api.h"
#include "vendorlib/dcmi/dcmi.h"

namespace anygpu {

namespace {

struct DcmiChip {
  PciAddress address;
  int card = 0, device = 0;
};

// The chips `self` reaches over HCCS, or why that is unknown: every pair must answer, else a
// missing peer could not be told from an unlinked one.
HccsFacts hccs_of(const dcmi::Api& api, const DcmiChip& self, const std::vector<DcmiChip>& all) {
  HccsFacts out;
  if (!api.topo) {
    out.unknown = "no dcmi_get_topo_info_by_device_id in this DCMI";
    return out;
  }
  for (const auto& other : all) {
    if (other.address == self.address) continue;
    int type = -1;
    int r = api.topo(self.card, self.device, other.card, other.device, &type);
    auto pair = cat({" (", self.address.str(), " to ", other.address.str(), ")"});
    if (r == dcmi::kNotSupported) {
      // The chip's answer for every pair: said once for all chips, without the pair.
      out.unknown = "dcmi_get_topo_info_by_device_id is not supported on this chip (error -8255)";
    } else if (r != dcmi::kOk) {
      out.unknown =
          cat({"dcmi_get_topo_info_by_device_id failed", pair, ": error ", std::to_string(r)});
    } else if (type < 0 || type >= dcmi::kTopoMax || type == dcmi::kTopoUnknown) {
      out.unknown = cat({"dcmi_get_topo_info_by_device_id answered ", std::to_string(type), pair,
                         ", an unknown relation"});
    } else if (type == dcmi::kTopoSelf) {
      out.unknown = cat({"dcmi_get_topo_info_by_device_id answered \"self\"", pair});
    } else if (type == dcmi::kTopoHccs || type == dcmi::kTopoHccsSw) {
      out.peers.push_back(other.address);
      continue;
    } else {
      continue;  // a PCIe or SIO relation: the PCI tree in sysfs tells the PCIe ones
    }
    out.peers.clear();
    return out;
  }
  return out;
}

// A fixed-size C string from the library: up to its first NUL, printable, else nothing.
std::optional<std::string> dcmi_text(const char* buf, size_t size) {
  std::string s(buf, strnlen(buf, size));
  if (s.empty() || !is_printable_text(s)) return std::nullopt;
  return s;
}

// The chip's vNPUs: the ids the total-resource command lists, then each one's own resources.
// A chip that answers no vNPU list (not split, or the call unsupported) has none to report.
std::vector<LibraryVnpuFacts> vnpus_of(const dcmi::Api& api, const DcmiChip& chip) {
  std::vector<LibraryVnpuFacts> out;
  if (!api.device_info) return out;
  dcmi::VdevTotal total{};
  unsigned size = sizeof total;
  if (api.device_info(chip.card, chip.device, dcmi::kMainCmdVdevMng, dcmi::kVdevSubCmdTotal, &total,
                      &size) != dcmi::kOk ||
      total.vdev_num > dcmi::kMaxVdevs)
    return out;
  for (unsigned i = 0; i < total.vdev_num; ++i) {
    LibraryVnpuFacts v;
    v.vdev_id = total.vdev_id[i];
    dcmi::VdevQuery q{};
    q.vdev_id = v.vdev_id;
    size = sizeof q;
    if (api.device_info(chip.card, chip.device, dcmi::kMainCmdVdevMng, dcmi::kVdevSubCmdOne, &q,
                        &size) == dcmi::kOk) {
      v.template_name = dcmi_text(q.info.name, sizeof q.info.name);
      // AI Cores: a template gives whole ones or a share below one; more than 1024 is no chip's.
      if (float aic = q.info.computing.aic; aic > 0 && aic <= 1024) v.ai_cores = aic;
      if (auto mb = q.info.computing.memory_size; mb > 0 && mb < (1ull << 36))
        v.memory_total_bytes = mb * 1024 * 1024;
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

void dcmi::probe(const DynamicLibrary& lib, LibraryResult& result) {
  Api api(lib);
  auto& report = result.report;
  if (!api.usable()) {
    report.status = LibraryStatus::error;
    report.message =
        "missing one of dcmi_init, dcmi_get_card_list, dcmi_get_device_num_in_card, "
        "dcmi_get_device_pcie_info(_v2)";
    return;
  }
  if (int r = api.init(); r != kOk) {
    report.status = LibraryStatus::error;
    report.message = cat({"dcmi_init failed: error ", std::to_string(r)});
    return;
  }
  report.status = LibraryStatus::loaded;
  std::vector<DcmiChip> all;
  for (const auto& [key, ids] : chips(api))
    if (auto address = pci_address_of(key)) all.push_back({*address, ids.first, ids.second});
  for (const auto& c : all) {
    LibraryDeviceFacts f;
    f.address = c.address;
    if (all.size() >= 2) f.hccs = hccs_of(api, c, all);
    f.vnpus = vnpus_of(api, c);
    result.devices.push_back(std::move(f));
  }
}

}  // namespace anygpu
