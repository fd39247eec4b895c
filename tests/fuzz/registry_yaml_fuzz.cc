// load_registry, the vendors.yaml/devices.yaml validator. The input is split at the first
// "\n#@devices\n" (a YAML comment line, so neither half needs a NUL to be told apart) into
// the vendors text and the devices text; without one, the devices list is empty.
#include <algorithm>
#include <set>
#include <string>

#include "fuzz_check.h"
#include "registry/registry_yaml.h"
#include "render/inventory_json.h"
#include "render/inventory_text.h"
#include "render/json_text.h"

using namespace anygpu;

namespace {
constexpr std::string_view kSeparator = "\n#@devices\n";
constexpr std::string_view kEmptyDevices = "schema: anygpu.devices/v1\ndevices: []\n";

bool https_or_convention(std::string_view s) {
  return s.rfind("https://", 0) == 0 || s.rfind("anygpu convention", 0) == 0 || s == "none found";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto sep = text.find(kSeparator);
  auto vendors_text = sep == std::string_view::npos ? text : text.substr(0, sep);
  auto devices_text =
      sep == std::string_view::npos ? kEmptyDevices : text.substr(sep + kSeparator.size());

  auto loaded = load_registry(vendors_text, "vendors.yaml", devices_text, "devices.yaml");
  if (!loaded) {
    // Every error names the file it is about.
    const auto& m = loaded.error().message;
    FUZZ_CHECK(m.rfind("vendors.yaml", 0) == 0 || m.rfind("devices.yaml", 0) == 0);
    return 0;
  }
  Registry reg = (*loaded)->registry();
  std::set<std::string_view> ids;
  for (const auto& v : reg.vendors()) {
    FUZZ_CHECK(!v.id.empty() && ids.insert(v.id).second);
    FUZZ_CHECK(!v.name.empty());
    FUZZ_CHECK(!v.pci_vendor_ids.empty() && !v.pci_classes.empty());
    for (auto cls : v.pci_classes)
      FUZZ_CHECK((cls >> 8) == 0x03 || (cls >> 8) == 0x12 || cls == 0x0b40);
    for (auto set : {v.per_device_nodes, v.shared_nodes})
      for (auto p : set) FUZZ_CHECK(p.rfind("/dev/", 0) == 0);
    for (const auto& src : v.driver_version) {
      FUZZ_CHECK(!src.path.empty());
      FUZZ_CHECK(src.after.empty() || src.key.empty());
    }
    for (const auto& lib : v.libraries) {
      FUZZ_CHECK(!lib.api.empty() && !lib.sonames.empty());
      for (auto s : lib.sonames) FUZZ_CHECK(s.find('/') == std::string_view::npos);
    }
    for (const auto& rt : v.runtimes) {
      FUZZ_CHECK(!rt.component.empty());
      FUZZ_CHECK(!rt.path.empty() + !rt.library.empty() + rt.derived == 1);
    }
    for (const auto& s : v.sources) FUZZ_CHECK(https_or_convention(s.value));
    FUZZ_CHECK(reg.vendor(v.id) == &v);
  }
  std::set<std::pair<std::string_view, uint16_t>> devs;
  for (const auto& d : reg.devices()) {
    FUZZ_CHECK(ids.count(d.vendor) == 1);
    FUZZ_CHECK(devs.insert({d.vendor, d.device_id}).second);
    FUZZ_CHECK(!d.name.empty() && !d.arch.empty() && d.source.rfind("https://", 0) == 0);
    if (d.memory_gib) FUZZ_CHECK(*d.memory_gib >= 0 && *d.memory_gib <= 1e12);
    if (d.memory_bandwidth_gbps)
      FUZZ_CHECK(*d.memory_bandwidth_gbps >= 0 && *d.memory_bandwidth_gbps <= 1e12);
    FUZZ_CHECK(reg.device(d.vendor, d.device_id) == &d);
  }
  // Whatever validated renders (invalid UTF-8 is replaced, never thrown).
  FUZZ_CHECK(!dump_json(registry_to_json(reg)).empty());
  (void)registry_to_text(reg);
  return 0;
}
