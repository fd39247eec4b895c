#include "vendorlib/dcmi/dcmi.h"

#include <vector>

#include "util/strings.h"
#include "vendorlib/dcmi/api.h"

namespace anygpu {

namespace {

bool dcmi_ok(int r, const char* what, health::DeviceLibraryFacts& f) {
  if (r == dcmi::kOk) return true;
  if (r != dcmi::kNotSupported) f.errors.push_back(cat({what, ": error ", std::to_string(r)}));
  return false;
}

void read_chip(const dcmi::Api& api, int card, int device, health::DeviceLibraryFacts& f) {
  if (unsigned level = 0;
      api.health && dcmi_ok(api.health(card, device, &level), "dcmi_get_device_health", f)) {
    if (level <= 3)
      f.alarm = level;
    else
      f.errors.push_back(
          cat({"dcmi_get_device_health: level ", std::to_string(level), " is none of 0 to 3"}));
  }
  // HBM's ECC: counts, and pages isolated (retired) or waiting to be; off when ECC is disabled.
  if (dcmi::EccInfo e{};
      api.ecc &&
      dcmi_ok(api.ecc(card, device, dcmi::kDeviceTypeHbm, &e), "dcmi_get_device_ecc_info", f) &&
      e.enable_flag != 0) {
    f.ecc_volatile = health::EccCounts{e.single_bit_error_cnt, e.double_bit_error_cnt};
    f.ecc_aggregate = health::EccCounts{e.total_single_bit_error_cnt, e.total_double_bit_error_cnt};
    f.retired_pages = health::RetiredPages{
        e.single_bit_isolated_pages_cnt, e.double_bit_isolated_pages_cnt,
        e.single_bit_next_isolated_pages_cnt > 0 || e.double_bit_next_isolated_pages_cnt > 0};
  }
  if (api.error_codes) {
    std::vector<unsigned> codes(health::kMaxFaultCodes);
    int count = 0;
    if (dcmi_ok(api.error_codes(card, device, &count, codes.data(), health::kMaxFaultCodes),
                "dcmi_get_device_errorcode_v2", f)) {
      if (count < 0 || count > static_cast<int>(health::kMaxFaultCodes))
        f.errors.push_back(
            cat({"dcmi_get_device_errorcode_v2: count ", std::to_string(count), " out of range"}));
      else
        f.fault_codes.emplace(codes.begin(), codes.begin() + count);
    }
  }
  if (!api.resource_info) return;
  std::vector<dcmi::ProcMemInfo> procs(dcmi::kMaxProcesses);
  int count = 0;
  if (!dcmi_ok(api.resource_info(card, device, procs.data(), &count),
               "dcmi_get_device_resource_info", f))
    return;
  if (count < 0 || count > dcmi::kMaxProcesses) {
    f.errors.push_back(
        cat({"dcmi_get_device_resource_info: count ", std::to_string(count), " out of range"}));
    return;
  }
  f.processes.emplace();
  for (int i = 0; i < count; ++i)
    if (procs[i].proc_id > 0)
      f.processes->push_back(
          {procs[i].proc_id, static_cast<uint64_t>(procs[i].proc_mem_usage), std::nullopt});
}

}  // namespace

std::optional<std::string> dcmi::read_health(const DynamicLibrary& lib, const HealthEmit& emit) {
  dcmi::Api api(lib);
  if (!api.usable())
    return lib.loaded_from() +
           ": no dcmi_init, dcmi_get_card_list, dcmi_get_device_num_in_card or PCIe info call";
  if (int r = api.init(); r != dcmi::kOk) return "dcmi_init failed: error " + std::to_string(r);
  for (const auto& [key, chip] : dcmi::chips(api)) {
    auto address = pci_address_of(key);
    if (!address) continue;
    health::DeviceLibraryFacts f;
    f.api = "dcmi";
    read_chip(api, chip.first, chip.second, f);
    emit(*address, f);
  }
  return std::nullopt;
}

}  // namespace anygpu
