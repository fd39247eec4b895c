#include "probe/sriov.h"

#include <cerrno>

#include "host/paths.h"
#include "probe/partition_parse.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// The bus id of the function `physfn` points to, when it is a PCI function of this host.
std::optional<std::string> physical_function(const ProbeContext& ctx, const PciDevice& d) {
  std::string link = d.sysfs_dir + "/physfn";
  auto target = ctx.host.read_link(link);
  if (!target) {
    if (target.error().sys_errno != ENOENT && target.error().sys_errno != ENOTDIR)
      ctx.warn(target.error().message);
    return std::nullopt;  // a physical function (or a function without SR-IOV)
  }
  auto name = target->substr(target->rfind('/') + 1);
  auto pf = PciAddress::parse(name);
  if (!pf || *pf == d.device.pci.address ||
      !ctx.host.exists(cat({paths::kPciDevices, "/", name}))) {
    ctx.warn(link, cat({"points to '", *target,
                        "', which is no other PCI function on this host; reported as a "
                        "function of its own"}));
    return std::nullopt;
  }
  return pf->str();
}

std::optional<int> count_file(const ProbeContext& ctx, const std::string& path) {
  auto text = ctx.optional_value(path);
  if (!text) return std::nullopt;
  auto n = parse_sriov_count(*text);
  if (!n) {
    ctx.warn(path, n.error().message);
    return std::nullopt;
  }
  return *n;
}

size_t virtfn_links(const ProbeContext& ctx, const PciDevice& d) {
  auto entries = ctx.host.list_dir(d.sysfs_dir);
  if (!entries) return 0;
  size_t n = 0;
  for (const auto& e : *entries)
    if (e.starts_with("virtfn") && e.size() > 6 && parse_uint(e.substr(6))) ++n;
  return n;
}

// The PF's counts while it has VFs enabled; nullopt when it has none or the files lie.
std::optional<Sriov> sriov_counts(const ProbeContext& ctx, const PciDevice& d) {
  std::string num_path = d.sysfs_dir + "/sriov_numvfs";
  auto num = count_file(ctx, num_path);
  if (!num || *num == 0) return std::nullopt;
  std::string total_path = d.sysfs_dir + "/sriov_totalvfs";
  auto total = count_file(ctx, total_path);
  if (!total) {
    ctx.warn(num_path, cat({std::to_string(*num), " virtual functions enabled, but ", total_path,
                            " gives no total; SR-IOV left out"}));
    return std::nullopt;
  }
  if (*num > *total) {
    ctx.warn(num_path, cat({std::to_string(*num), " virtual functions enabled, more than the ",
                            std::to_string(*total), " of ", total_path, "; SR-IOV left out"}));
    return std::nullopt;
  }
  // The kernel links every enabled VF: a count without its links is stale or made up, yet the
  // register still says the PF lends its resources, so the counts stay (with a warning).
  if (auto links = virtfn_links(ctx, d); links != static_cast<size_t>(*num))
    ctx.warn(num_path, cat({std::to_string(*num), " virtual functions enabled, but ", d.sysfs_dir,
                            " links ", std::to_string(links), " (virtfn*)"}));
  return Sriov{*total, *num};
}

}  // namespace

void probe_sriov(const ProbeContext& ctx, std::vector<PciDevice>& found) {
  for (auto& d : found) {
    d.device.physfn = physical_function(ctx, d);
    // A virtual function has no SR-IOV capability of its own.
    if (!d.device.physfn) d.device.sriov = sriov_counts(ctx, d);
  }
}

}  // namespace anygpu
