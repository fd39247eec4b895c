#include "render/inventory_text.h"

#include <cstdio>
#include <vector>

#include "util/strings.h"

namespace anygpu {

namespace {

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return buf;
}

// Left-aligned columns sized to their widest cell.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out += std::string(trim(line)) + "\n";
  }
  return out;
}

std::string opt(const std::optional<std::string>& s) {
  return s ? *s : "-";
}

// "4", "0.5": the AI Cores a vNPU template gives, as DCMI reports them.
std::string ai_core_text(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", n);
  return buf;
}

// "  partition 3 (CPX/NPS4): 0000:05:00.0/3, /dev/dri/card4 /dev/dri/renderD131"
std::string partition_line(const Device& d, const Partition& p) {
  std::string mode = d.partitioning->mode;
  if (d.partitioning->memory_mode) mode += "/" + *d.partitioning->memory_mode;
  std::string line = cat({"  partition ", std::to_string(p.index), " (", mode, "): ", p.id});
  if (p.profile) line += ", " + *p.profile;
  // An Ascend vNPU's template comes from DCMI alone; without it, said rather than guessed.
  if (!p.profile && d.partitioning->mode == "vnpu") line += ", template not read (needs DCMI)";
  if (p.ai_cores) line += cat({", ", ai_core_text(*p.ai_cores), " AI Cores"});
  if (p.memory_total_bytes) line += ", " + gib(*p.memory_total_bytes);
  if (!p.device_nodes.empty()) line += ", " + join(p.device_nodes, " ");
  return line + "\n";
}

// "  sr-iov: 2 of 31 virtual functions enabled" under a PF, "  virtual function of 0000:4d:00.0"
// under a VF.
std::string sriov_line(const Device& d) {
  if (d.physfn) return cat({"  virtual function of ", *d.physfn, "\n"});
  if (d.sriov)
    return cat({"  sr-iov: ", std::to_string(d.sriov->num_vfs), " of ",
                std::to_string(d.sriov->total_vfs), " virtual functions enabled\n"});
  return "";
}

// The device table, each partitioned device's row followed by one line per partition.
std::string device_table(const std::vector<Device>& devices) {
  std::vector<std::vector<std::string>> rows = {
      {"IDX", "VENDOR", "NAME", "BUS ID", "MEMORY", "ARCH", "DRIVER", "NUMA", "STATUS"}};
  for (const auto& d : devices) {
    std::string driver = "-";
    if (d.driver) driver = d.driver->name + (d.driver->version ? " " + *d.driver->version : "");
    rows.push_back({std::to_string(d.index), d.vendor, opt(d.name), d.pci.address.str(),
                    d.memory_total_bytes ? gib(*d.memory_total_bytes) : "-", opt(d.arch), driver,
                    d.numa_node ? std::to_string(*d.numa_node) : "-",
                    std::string(to_string(d.status))});
  }
  std::string text = table(rows);
  auto lines = split_lines(text);
  std::string out = std::string(lines[0]) + "\n";
  for (size_t i = 0; i < devices.size(); ++i) {
    out += std::string(lines[i + 1]) + "\n";
    out += sriov_line(devices[i]);
    if (devices[i].partitioning)
      for (const auto& p : devices[i].partitions) out += partition_line(devices[i], p);
  }
  return out;
}

}  // namespace

std::string inventory_to_text(const Inventory& inv) {
  const auto& h = inv.host;
  std::string out = cat(
      {"host ", opt(h.hostname), ": ", opt(h.os), ", kernel ", opt(h.kernel), ", ", opt(h.arch)});
  if (h.cpus) out += ", " + std::to_string(*h.cpus) + " CPUs";
  if (h.numa_nodes) out += ", " + std::to_string(*h.numa_nodes) + " NUMA nodes";
  out += "\n";
  if (inv.devices.empty()) {
    out += "no accelerators found: the CPU fallback applies (torch device cpu, backend gloo)\n";
  } else {
    out += device_table(inv.devices);
  }
  if (!inv.runtimes.empty()) {
    std::vector<std::string> parts;
    for (const auto& r : inv.runtimes) parts.push_back(r.component + " " + r.version);
    out += "runtimes: " + join(parts, ", ") + "\n";
  }
  return out;
}

std::string registry_to_text(const Registry& registry) {
  std::vector<std::vector<std::string>> rows = {
      {"VENDOR", "PCI IDS", "DRIVERS", "TORCH", "BACKEND", "VISIBLE DEVICES", "K8S RESOURCE"}};
  for (const auto& v : registry.vendors()) {
    std::vector<std::string> ids, drivers;
    for (auto id : v.pci_vendor_ids) ids.push_back(hex(id, 4));
    for (auto d : v.drivers) drivers.emplace_back(d);
    rows.push_back({std::string(v.id), join(ids, ","), join(drivers, ","),
                    cat({v.torch_device, " (", v.torch_package, ")"}), std::string(v.dist_backend),
                    std::string(v.visible_devices_env), std::string(v.k8s_resource)});
  }
  return table(rows) + std::to_string(registry.devices().size()) + " known device models\n";
}

}  // namespace anygpu
