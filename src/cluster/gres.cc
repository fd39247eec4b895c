#include "cluster/gres.h"

#include <algorithm>
#include <map>
#include <set>

#include "topo/closeness.h"
#include "util/strings.h"

namespace anygpu {

namespace {

bool has_digit(std::string_view s) {
  return s.find_first_of("0123456789") != std::string_view::npos;
}
bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// Lower case, with what Slurm cannot take in a Type (spaces, ':', ',', '=') dropped.
std::string clean(std::string_view s) {
  std::string out;
  for (char c : to_lower(s))
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')
      out += c;
  return out;
}

// A word of the name up to the first character a Type cannot take ("Intel(R)" -> "intel"):
// cut, never spliced, so it stays a substring of the name Slurm's AutoDetect writes.
std::string type_word(std::string_view word) {
  auto lower = to_lower(word);
  auto end = std::find_if_not(lower.begin(), lower.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
  return std::string(lower.begin(), end);
}

// gres.conf(5) environment flags for a vendor's lines: the registry's slurm.gres_flags
// (amd_gpu_env for ROCm, whose runtime applies ROCR_VISIBLE_DEVICES first and would index a
// CUDA_VISIBLE_DEVICES set beside it into what is left), "" when the registry does not say.
std::string vendor_flags(const Registry& registry, const std::string& vendor) {
  const auto* v = registry.vendor(vendor);
  if (!v) return {};
  return join({v->slurm.gres_flags.begin(), v->slurm.gres_flags.end()}, ",");
}

struct NodeFlags {
  std::string flags, note;
};

// slurmd takes one set of environment flags per node and GRES name ("Flags (…) does not match
// env flags for previous GRES of same node and name", src/interfaces/gres.c), so every line
// carries the same. Vendors that disagree share no variable that is right for all of them: a
// variable one runtime reads would be set for the other's jobs too (HIP reads
// CUDA_VISIBLE_DEVICES), with indices that count every line of the node. Then no_gpu_env.
NodeFlags node_flags(const std::vector<GresLine>& lines, const Registry& registry) {
  std::map<std::string, std::string> by_vendor;
  for (const auto& l : lines)
    by_vendor.emplace(l.device->vendor, vendor_flags(registry, l.device->vendor));
  std::set<std::string> distinct;
  for (const auto& [vendor, flags] : by_vendor) distinct.insert(flags);
  if (distinct.size() <= 1) return {distinct.empty() ? "" : *distinct.begin(), ""};
  std::vector<std::string> each;
  for (const auto& [vendor, flags] : by_vendor)
    each.push_back(cat({vendor, " ", flags.empty() ? "(Slurm's default)" : flags}));
  return {"no_gpu_env",
          cat({"Flags=no_gpu_env: this node's GPUs want different variables (", join(each, ", "),
               ") and slurmd takes one set of environment flags per node and GRES name; any "
               "one set would hand the other vendor's jobs a variable their runtime misreads. "
               "Slurm then sets no visible-devices variable: confine jobs with "
               "ConstrainDevices=yes (cgroup.conf); SLURM_STEP_GPUS/SLURM_JOB_GPUS count the "
               "lines below."})};
}

bool is_drm(const std::string& node) {
  return node.rfind("/dev/dri/", 0) == 0;
}

}  // namespace

// gres.conf(5): with AutoDetect on, a configured Type must "match or be a substring of the
// value that is detected" (the device name, lower-cased, spaces made underscores), so every
// Type taken from the name is a substring of that form.
std::string gres_type(const Device& d) {
  if (d.name) {
    std::vector<std::string> words, whole;  // cut words; the lower-cased word when uncut
    for (auto w : split(*d.name, ' ')) {
      if (w.empty()) continue;
      words.push_back(type_word(w));
      whole.push_back(to_lower(w));
    }
    for (size_t i = 0; i < words.size(); ++i) {
      if (!has_digit(words[i])) continue;
      if (all_digits(words[i]) && i > 0 && !words[i - 1].empty() && words[i - 1] == whole[i - 1])
        return words[i - 1] + "_" + words[i];
      return words[i];
    }
    // No model number ("Intel(R) Arc(TM) Graphics"): the first word that is not the vendor's.
    for (const auto& w : words)
      if (!w.empty() && w != d.vendor) return w;
  }
  if (d.arch && !clean(*d.arch).empty()) return clean(*d.arch);
  return clean(d.vendor);
}

namespace {

// The partition's own node Slurm confines a job to: every node of a MIG instance (the parent
// is shared, the caps are not), the render node of an AMD partition.
bool partition_files(const Partition& p, GresLine& l) {
  bool mig = false;
  for (const auto& n : p.device_nodes) mig = mig || n.starts_with("/dev/nvidia-caps/");
  if (mig) {
    l.files = p.device_nodes;
    return !l.files.empty();
  }
  if (p.render_node) l.file = *p.render_node;
  for (const auto& n : p.device_nodes)
    if (l.file.empty() && n.starts_with("/dev/dri/renderD")) l.file = n;
  return !l.file.empty();
}

void add_partition_lines(const Device& d, const CoreMap* cores, std::vector<GresLine>& lines) {
  auto base = gres_type(d);
  bool mig = d.partitioning->mode == "mig";
  for (const auto& p : d.partitions) {
    GresLine l;
    l.device = &d;
    l.partition = &p;
    l.type = mig ? cat({base, "_", p.profile ? clean(*p.profile) : "mig"}) : base;
    if (!partition_files(p, l)) continue;
    if (cores && d.cpu_affinity) l.cores = cores_for_cpulist(*cores, *d.cpu_affinity);
    lines.push_back(std::move(l));
  }
}

}  // namespace

std::vector<GresLine> gres_lines(const Inventory& inventory, const CoreMap* cores,
                                 const Registry& registry) {
  std::vector<GresLine> lines;
  for (const auto& d : inventory.devices) {
    if (!d.bound()) continue;        // no node a job could open
    if (d.lends_to_vfs()) continue;  // its virtual functions are the devices (docs/select.md)
    // Slurm confines a job by device file, and a tile has none of its own (its card's nodes
    // reach both tiles): a tiled card stays one line, as Slurm's oneAPI detection writes it.
    if (d.partitioning && !d.partitions.empty() && d.partitioning->mode != "tiles") {
      add_partition_lines(d, cores, lines);
      continue;
    }
    GresLine l;
    l.device = &d;
    l.type = gres_type(d);
    // The vendor's own per-device node (/dev/nvidiaN, /dev/davinciN, /dev/accel/accelN) is
    // what the runtime opens; DRM-only vendors (AMD, Hygon, Intel) are used through the
    // render node, which is also what Slurm's own RSMI/oneAPI detection lists.
    for (const auto& n : d.device_nodes)
      if (!is_drm(n)) {
        l.file = n;
        break;
      }
    if (l.file.empty() && d.render_node) l.file = *d.render_node;
    if (l.file.empty()) continue;  // no node: nothing Slurm could hand to a job
    if (cores && d.cpu_affinity) l.cores = cores_for_cpulist(*cores, *d.cpu_affinity);
    lines.push_back(std::move(l));
  }
  auto flags = node_flags(lines, registry).flags;
  for (auto& l : lines) l.flags = flags;
  return lines;
}

namespace {

// Links= between two partition lines whose partitions KFD links (Topology::partition_links):
// 2 inside one device, 1 across two, so Slurm, which prefers the GPUs with the most links to
// those already chosen, fills a device before it spreads; 0 without a direct link.
int partition_links_value(const Topology& t, size_t a, size_t b) {
  const auto* l = t.partition_link(a, b);
  if (!l || direct_link_count(*l) <= 0) return 0;
  return t.partitions[a].device == t.partitions[b].device ? 2 : 1;
}

}  // namespace

std::string add_gres_links(std::vector<GresLine>& lines, const Topology& topology) {
  std::map<PciAddress, size_t> index_of;
  for (size_t i = 0; i < topology.devices.size(); ++i)
    index_of[topology.devices[i].device->pci.address] = i;
  std::map<std::string, size_t> partition_of;
  for (size_t k = 0; k < topology.partitions.size(); ++k)
    partition_of[topology.partitions[k].partition->id] = k;
  // The topology's index of each line's device, and of its partition when it has one.
  std::vector<std::optional<size_t>> at, part;
  bool unlinked_partition = false;  // a partition line the topology has no row for
  for (const auto& l : lines) {
    auto it = index_of.find(l.device->pci.address);
    at.push_back(it == index_of.end() ? std::nullopt : std::optional<size_t>(it->second));
    auto pt = l.partition ? partition_of.find(l.partition->id) : partition_of.end();
    part.push_back(pt == partition_of.end() ? std::nullopt : std::optional<size_t>(pt->second));
    unlinked_partition = unlinked_partition || (l.partition && !part.back());
  }
  std::vector<std::vector<int>> matrix(lines.size(), std::vector<int>(lines.size(), 0));
  bool any = false, partitions = false;
  for (size_t i = 0; i < lines.size(); ++i)
    for (size_t j = 0; j < lines.size(); ++j) {
      if (i == j) continue;
      if (part[i] && part[j]) {
        matrix[i][j] = partition_links_value(topology, *part[i], *part[j]);
        partitions = partitions || matrix[i][j] > 0;
      } else if (at[i] && at[j] && *at[i] != *at[j] &&
                 (unlinked_partition || (!lines[i].partition && !lines[j].partition))) {
        // Between whole devices; with a partition line the topology has no row for, only to
        // say below why there is no Links=. A partition row and a whole device stay 0.
        const auto* link = topology.link(*at[i], *at[j]);
        matrix[i][j] = link ? direct_link_count(*link) : 0;
      }
      any = any || matrix[i][j] > 0;
    }
  if (!any) return {};
  if (unlinked_partition)
    return "Links= left out: the device links are between whole devices and these lines are "
           "partitions";
  for (size_t i = 0; i < lines.size(); ++i) {
    lines[i].links = matrix[i];
    lines[i].links[i] = -1;
  }
  if (partitions)
    return "Links= between partitions (KFD's xGMI links): 2 between two of one device, 1 between "
           "two devices, so that a job's partitions fill one device first";
  return {};
}

std::string gres_flags_note(const std::vector<GresLine>& lines, const Registry& registry) {
  return node_flags(lines, registry).note;
}

std::string gres_conf(const std::vector<GresLine>& lines, const std::string& hostname,
                      const std::vector<std::string>& notes) {
  std::string out;
  out += "# gres.conf for " + hostname + ", written by `anygpu slurm gres`.\n";
  out +=
      "# AutoDetect=off: the lines below are the whole truth for every vendor. Slurm's own\n"
      "# detection knows only NVML, RSMI, oneAPI and NRT devices and, when built with one of\n"
      "# them, would add or replace lines for those vendors.\n";
  for (const auto& n : notes)
    if (!n.empty()) out += "# " + n + "\n";
  out += "AutoDetect=off\n";
  std::map<std::string, int> per_type;
  std::vector<std::string> order;
  for (const auto& l : lines) {
    out += cat({"Name=gpu Type=", l.type});
    out += l.files.empty() ? " File=" + l.file : " MultipleFiles=" + join(l.files, ",");
    if (l.cores) out += " Cores=" + *l.cores;
    if (!l.links.empty()) {
      std::vector<std::string> each;
      for (int n : l.links) each.push_back(std::to_string(n));
      out += " Links=" + join(each, ",");
    }
    if (!l.flags.empty()) out += " Flags=" + l.flags;
    out += "\n";
    if (per_type[l.type]++ == 0) order.push_back(l.type);
  }
  std::vector<std::string> gres;
  for (const auto& t : order) gres.push_back(cat({"gpu:", t, ":", std::to_string(per_type[t])}));
  if (!gres.empty())
    out += cat(
        {"# slurm.conf: GresTypes=gpu and NodeName=", hostname, " Gres=", join(gres, ","), "\n"});
  return out;
}

}  // namespace anygpu
