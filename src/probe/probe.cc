#include "probe/probe.h"

#include <algorithm>
#include <map>

#include "probe/host_info.h"
#include "probe/libraries_may_load.h"
#include "probe/libs/library_probe.h"
#include "probe/libs/probe_client.h"
#include "probe/pci.h"
#include "probe/runtimes.h"
#include "probe/vendors/backend.h"
#include "util/strings.h"

namespace anygpu {

namespace {

void probe_kernel_facts(const ProbeContext& ctx, std::vector<PciDevice>& found) {
  std::map<std::string_view, std::vector<PciDevice*>> by_vendor;
  for (auto& d : found) by_vendor[d.vendor->id].push_back(&d);
  for (auto& [vendor, devices] : by_vendor)
    if (const auto* backend = backend_for(vendor)) backend->probe_kernel(ctx, devices);
  for (auto& d : found) apply_registry_facts(ctx, d);
}

void merge(const ProbeContext& ctx, Device& dev, const LibraryDeviceFacts& f,
           std::string_view api) {
  if (f.name) dev.name = f.name;
  if (f.uuid && !dev.uuid) dev.uuid = f.uuid;
  if (f.arch) dev.arch = f.arch;
  if (f.memory_total_bytes && *f.memory_total_bytes > kMaxPlausibleMemoryBytes)
    ctx.warn(dev.pci.address.str(),
             cat({api, " reports an implausible memory size of ",
                  std::to_string(*f.memory_total_bytes), " bytes (over 64 PiB); ignored"}));
  else if (f.memory_total_bytes)
    dev.memory_total_bytes = f.memory_total_bytes;
  if (f.nvlink) dev.nvlink = f.nvlink;
  if (f.hccs) dev.hccs = f.hccs;
  if (f.xelink) dev.xelink = f.xelink;
  dev.add_source(api);
}

// NVML's MIG devices onto the instances the driver's capability procfs showed, by GI and CI
// id: each gains its uuid (which becomes its id, MIG-<uuid> being what CUDA takes), profile and
// memory. One the procfs does not show is a warning, never an invented partition.
void merge_mig(const ProbeContext& ctx, Device& dev, const LibraryDeviceFacts& f,
               std::string_view api) {
  for (const auto& m : f.mig) {
    auto it = std::find_if(dev.partitions.begin(), dev.partitions.end(), [&](const Partition& p) {
      return p.gpu_instance == static_cast<int>(m.gpu_instance) &&
             p.compute_instance == static_cast<int>(m.compute_instance);
    });
    if (it == dev.partitions.end()) {
      ctx.warn(dev.pci.address.str(),
               cat({api, " lists MIG instance GI ", std::to_string(m.gpu_instance), " CI ",
                    std::to_string(m.compute_instance),
                    " that the driver's capability procfs does not show; left out"}));
      continue;
    }
    if (m.uuid && m.uuid->starts_with("MIG-")) it->id = it->uuid.emplace(*m.uuid);
    if (m.profile) it->profile = m.profile;
    if (m.memory_total_bytes && *m.memory_total_bytes <= kMaxPlausibleMemoryBytes)
      it->memory_total_bytes = m.memory_total_bytes;
  }
}

// DCMI's vNPUs onto those the kernel's /dev/vdavinci<id> nodes showed, by id: each gains its
// template (as its profile), AI Cores and memory. One without a node is a warning, never an
// invented partition.
void merge_vnpus(const ProbeContext& ctx, Device& dev, const LibraryDeviceFacts& f,
                 std::string_view api) {
  for (const auto& v : f.vnpus) {
    auto it = std::find_if(dev.partitions.begin(), dev.partitions.end(), [&](const Partition& p) {
      return p.runtime_index == static_cast<int>(v.vdev_id);
    });
    if (it == dev.partitions.end()) {
      ctx.warn(dev.pci.address.str(),
               cat({api, " lists vNPU ", std::to_string(v.vdev_id), " that no /dev/vdavinci",
                    std::to_string(v.vdev_id), " shows; left out"}));
      continue;
    }
    if (v.template_name) it->profile = v.template_name;
    if (v.ai_cores) it->ai_cores = v.ai_cores;
    if (v.memory_total_bytes && *v.memory_total_bytes <= kMaxPlausibleMemoryBytes)
      it->memory_total_bytes = v.memory_total_bytes;
  }
}

void merge_library(const ProbeContext& ctx, const Vendor& vendor, std::vector<PciDevice>& found,
                   Inventory& inv, LibraryResult& r) {
  for (const auto& f : r.devices)
    for (auto& d : found)
      if (d.vendor == &vendor && d.device.pci.address == f.address) {
        merge(ctx, d.device, f, r.report.api);
        merge_mig(ctx, d.device, f, r.report.api);
        merge_vnpus(ctx, d.device, f, r.report.api);
      }
  if (r.driver_version)
    for (auto& d : found)
      if (d.vendor == &vendor && d.device.driver && !d.device.driver->version)
        d.device.driver->version = r.driver_version;
  for (auto& rt : r.runtimes) inv.runtimes.push_back(std::move(rt));
  if (r.report.status == LibraryStatus::error)
    ctx.warn(cat({vendor.id, " ", r.report.api}), r.report.message.value_or("error"));
  inv.libraries.push_back(std::move(r.report));
}

// Every vendor's libraries run in a worker process of their own (src/worker/), all started at
// once and collected against one deadline.
void probe_libraries(const ProbeContext& ctx, std::vector<PciDevice>& found, Inventory& inv) {
  if (!ctx.host.options().load_libraries) return;
  std::vector<const Vendor*> vendors;
  for (const auto& d : found)
    if (std::find(vendors.begin(), vendors.end(), d.vendor) == vendors.end())
      vendors.push_back(d.vendor);
  std::erase_if(vendors, [&](const Vendor* v) {
    std::vector<const Device*> mine;
    for (const auto& d : found)
      if (d.vendor == v) mine.push_back(&d.device);
    return !libraries_may_load(mine);
  });
  std::vector<worker::ProbeSession> sessions;
  for (const auto* v : vendors) {
    std::vector<LibraryRequest> libs;
    for (const auto& spec : v->libraries) libs.push_back(library_request(*v, spec));
    sessions.emplace_back(ctx.host, std::move(libs));
  }
  for (auto& s : sessions) s.start();
  auto deadline = worker::Clock::now() + ctx.host.options().library_timeout;
  for (size_t i = 0; i < sessions.size(); ++i)
    for (auto& r : sessions[i].finish(deadline, inv.diagnostics))
      merge_library(ctx, *vendors[i], found, inv, r);
}

// A required library (one that ships with the driver) that is nowhere to be found.
void mark_missing_libraries(std::vector<PciDevice>& found, const Inventory& inv) {
  for (auto& d : found) {
    auto& dev = d.device;
    if (dev.status != DeviceStatus::ok) continue;
    bool required = false, missing = true;
    for (const auto& spec : d.vendor->libraries) {
      if (!spec.required) continue;
      required = true;
      for (const auto& r : inv.libraries)
        if (r.vendor == dev.vendor && (r.api == spec.api || r.status == LibraryStatus::timeout) &&
            r.status != LibraryStatus::missing)
          missing = false;
    }
    if (required && missing) dev.status = DeviceStatus::library_missing;
  }
}

}  // namespace

Inventory probe(const HostRoot& host, const Registry& registry) {
  Inventory inv;
  ProbeContext ctx{host, registry, inv.diagnostics};
  inv.host = probe_host_info(ctx);
  auto found = scan_pci(ctx);
  probe_kernel_facts(ctx, found);
  probe_libraries(ctx, found, inv);
  if (host.options().load_libraries) mark_missing_libraries(found, inv);
  for (auto& d : found) inv.devices.push_back(std::move(d.device));
  auto kernel_runtimes = probe_runtimes(ctx, inv.devices);
  for (auto& rt : kernel_runtimes) {
    bool have =
        std::any_of(inv.runtimes.begin(), inv.runtimes.end(), [&](const RuntimeComponent& r) {
          return r.vendor == rt.vendor && r.component == rt.component;
        });
    if (!have) inv.runtimes.push_back(std::move(rt));
  }
  return inv;
}

}  // namespace anygpu
