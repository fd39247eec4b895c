// gres.conf for the discovered devices of every vendor, including those Slurm's AutoDetect
// (NVML, RSMI, oneAPI, NRT) does not know: Ascend, Cambricon, Moore Threads, Hygon, Gaudi …
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cluster/core_map.h"
#include "model/inventory.h"
#include "registry/registry.h"
#include "topo/topology.h"

namespace anygpu {

struct GresLine {
  std::string type;  // "h100", "mi300x", "ascend910b": Slurm's Type=, a model-ish word
  std::string file;  // the node Slurm's cgroup device constraint opens up for the job
  // A MIG instance's nodes (parent, GI cap, CI cap): MultipleFiles= in place of File=.
  std::vector<std::string> files;
  std::optional<std::string> cores;  // logical core indices (core_map.h)
  // Flags=: the environment flags of every line of the node (gres_lines()), may be empty.
  std::string flags;
  const Device* device = nullptr;
  const Partition* partition = nullptr;  // on a partitioned device: the line's partition
  // Links=: one entry per line of the node, in line order; -1 for this line's own device, the
  // number of direct links to the other's device, 0 for none. Empty: no Links=.
  std::vector<int> links;
};

// Type= for a device: the first word of its name holding a digit ("NVIDIA H100 80GB HBM3" ->
// "h100", "Intel(R) Data Center GPU Max 1550" -> "max_1550"), else its arch, else the vendor.
std::string gres_type(const Device& device);

// One line per device that has a node, one per partition on a partitioned device (facts F-21:
// a MIG instance is MultipleFiles= of its three nodes, Type "<type>_<profile>" as Slurm's NVML
// detection names it, "<type>_mig" while the profile is unknown; an AMD partition is its render
// node); `cores` absent leaves Cores= out. Every line carries
// the same Flags= (slurmd refuses a node whose lines of one GRES name differ): the vendors'
// registry slurm.gres_flags when they agree, no_gpu_env when they do not.
std::vector<GresLine> gres_lines(const Inventory& inventory, const CoreMap* cores,
                                 const Registry& registry = Registry::builtin());

// Fills GresLine::links from the topology's direct links (topo/closeness.h) when any two lines'
// devices have one; a node with none keeps its lines as they were. Partition lines whose
// partitions the topology links on their own (KFD lists AMD partitions as nodes) get 2 between
// partitions of one device and 1 across devices (the returned note says so). Other partition
// lines get no Links= (the links are between whole devices, and Slurm would read each partition
// as a GPU with all its parent's links): the note says so. Else the note is "".
std::string add_gres_links(std::vector<GresLine>& lines, const Topology& topology);

// Why the lines carry no_gpu_env, when the node's vendors want different flags; else "".
std::string gres_flags_note(const std::vector<GresLine>& lines,
                            const Registry& registry = Registry::builtin());

// The gres.conf text: a header explaining AutoDetect=off, the notes as comments, the lines,
// and the matching slurm.conf Gres= for the node as a comment.
std::string gres_conf(const std::vector<GresLine>& lines, const std::string& hostname,
                      const std::vector<std::string>& notes);

}  // namespace anygpu
