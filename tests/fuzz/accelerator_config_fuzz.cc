// accelerator-config.yaml: any text parses or fails with a located message, never crashes;
// a parsed config selects on a synthetic host (with occupancy for some units) without crashing.
#include "fuzz_check.h"
#include "select/accelerator_config.h"
#include "select/render.h"
#include "select/select.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  const std::string file = "fuzz.yaml";
  auto cfg = parse_accelerator_config(text, file);
  if (!cfg) {
    FUZZ_CHECK(cfg.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(cfg.error().message.rfind(file, 0) == 0);
    return 0;
  }
  FUZZ_CHECK(cfg->backend == "auto" || cfg->backend == "cpu" ||
             Registry::builtin().vendor(cfg->backend) != nullptr);
  FUZZ_CHECK(!cfg->count || *cfg->count >= 1);
  FUZZ_CHECK(!(cfg->count && !cfg->list.empty()));
  for (size_t i = 1; i < cfg->policy.size(); ++i)
    FUZZ_CHECK(cfg->policy[i - 1].priority <= cfg->policy[i].priority);
  // Parsing is a pure function of the text.
  auto again = parse_accelerator_config(text, file);
  FUZZ_CHECK(again.ok() && again->policy.size() == cfg->policy.size() &&
             again->backend == cfg->backend);

  // Select on a small two-vendor host.
  Inventory inv;
  inv.host.cpus = 8;
  const char* ids[] = {"0000:18:00.0", "0000:2a:00.0", "0000:9a:00.0"};
  for (int i = 0; i < 3; ++i) {
    Device d;
    d.vendor = i < 2 ? "nvidia" : "amd";
    d.index = i < 2 ? i : 0;
    d.pci.address = *PciAddress::parse(ids[i]);
    d.pci.root_complex = i == 0 ? "pci0000:00" : "pci0000:80";
    d.numa_node = i;
    d.cpu_affinity = i == 0 ? "0-3" : "4-7";
    d.arch = i < 2 ? "sm_90" : "gfx942";
    d.driver = DriverInfo{"nvidia", "550.90.07"};
    d.memory_total_bytes = uint64_t{80} << 30;
    inv.devices.push_back(d);
  }
  // Partitions: two MIG instances on nvidia 1 (one with a UUID), two CPX partitions on amd 0.
  for (int k = 1; k < 3; ++k) {
    auto& d = inv.devices[static_cast<size_t>(k)];
    d.partitioning = Partitioning{k == 1 ? "mig" : "CPX", std::nullopt};
    for (int p = 0; p < 2; ++p) {
      Partition part;
      part.index = p;
      part.id = d.pci.address.str() + "/" + std::to_string(p);
      if (k == 1 && p == 0) part.uuid = part.id = "MIG-0b1e2a3c-0000-4000-8000-000000000001";
      if (k == 2) part.runtime_index = p;
      d.partitions.push_back(part);
    }
  }
  // Occupancy: one device known (idle, one holder), one partition with nothing read; the rest
  // absent, so unknown.
  SelectInputs in;
  in.occupancy["0000:18:00.0"] = UnitOccupancy{uint64_t{70} << 30, 0.3, 1, "", "", ""};
  in.occupancy["0000:9a:00.0/1"] = UnitOccupancy{{}, {}, {}, "not read", "not read", "not read"};
  auto sel = select_devices(inv, *cfg, in);
  if (!sel) {
    // A listed device this host lacks (or cannot use) fails whatever the backend.
    FUZZ_CHECK(sel.error().kind == ErrorKind::host);
    FUZZ_CHECK(cfg->backend != "auto" || !cfg->list.empty());
    return 0;
  }
  FUZZ_CHECK(sel->partitions.empty() || sel->partitions.size() == sel->devices.size());
  // Only a policy's criteria reject, each with its rule and a reason; a chosen unit never is.
  for (const auto& r : sel->rejected) {
    FUZZ_CHECK(r.priority && !r.reason.empty() && !r.unit.empty());
    for (const auto& d : sel->devices)
      FUZZ_CHECK(d.vendor != r.vendor || !sel->priority || *sel->priority != *r.priority ||
                 d.pci.address.str() != r.unit);
  }
  FUZZ_CHECK(sel->num_workers >= 1);
  FUZZ_CHECK(sel->vendor == "cpu" ? sel->devices.empty() : !sel->devices.empty());
  for (const auto& d : sel->devices) FUZZ_CHECK(d.vendor == sel->vendor);
  int visible = 0;
  for (const auto& [k, v] : sel->env) visible += k.find("VISIBLE_DEVICES") != std::string::npos;
  FUZZ_CHECK(visible <= 1);
  FUZZ_CHECK(!selection_to_shell(*sel).empty());
  FUZZ_CHECK(selection_to_json(*sel)["schema"] == "anygpu.selection/v1");
  return 0;
}
