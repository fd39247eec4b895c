#include "cluster/k8s.h"

#include <yaml-cpp/yaml.h>

#include <map>

#include "cluster/gres.h"
#include "cluster/k8s_names.h"
#include "select/select.h"
#include "topo/closeness.h"
#include "util/strings.h"

namespace anygpu {

namespace {

// A label value: at most 63 characters, alphanumeric at both ends, '-', '_', '.' inside.
std::string label_value(std::string_view s) {
  std::string out;
  for (char c : s) out += (k8s_names::is_alnum(c) || c == '-' || c == '_' || c == '.') ? c : '-';
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && !k8s_names::is_alnum(out.back())) out.pop_back();
  while (!out.empty() && !k8s_names::is_alnum(out.front())) out.erase(0, 1);
  return out;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

// The devices of `vendor` a job gets: the largest set sharing kernel driver and model (the
// device plugin advertises i915 and xe cards as different resources, so a pod gets cards of
// one driver); ties go to the first in PCI order. Empty when the vendor has none.
std::vector<const Device*> job_devices(const Inventory& inv, const std::string& vendor) {
  std::map<std::pair<std::string, std::string>, std::vector<const Device*>> groups;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto* d : inv.of_vendor(vendor)) {
    std::pair<std::string, std::string> key{d->driver ? d->driver->name : "", gres_type(*d)};
    if (groups[key].empty()) order.push_back(key);
    groups[key].push_back(d);
  }
  const std::vector<const Device*>* best = nullptr;
  for (const auto& key : order)
    if (!best || groups[key].size() > best->size()) best = &groups[key];
  return best ? *best : std::vector<const Device*>{};
}

// Partitioned devices add, per vendor, how many partitions the node offers and in which mode
// ("CPX-NPS4", "mig"; "mixed" where devices differ), how many in each mode
// (<vendor>.partitions.<mode>, so a mixed node still says what it offers), and per known profile
// a count: MIG's named as NVIDIA's feature discovery names it (mig-<profile>.count, facts F-18),
// another mode's as <vendor>.<mode>-<profile>.count (an Ascend vNPU template). A partition whose
// profile was not read is in no profile count. No partition, no label.
template <class Key>
void add_partition_labels(const Inventory& inv, const Key& key, Labels& labels) {
  std::map<std::string, int> partitions, profiles;
  std::map<std::string, std::map<std::string, int>> per_mode;
  std::map<std::string, std::string> modes;
  for (const auto& d : inv.devices) {
    if (!d.partitioning || d.partitions.empty()) continue;
    int n = static_cast<int>(d.partitions.size());
    partitions[d.vendor] += n;
    auto mode = d.partitioning->mode;
    if (d.partitioning->memory_mode) mode += "-" + *d.partitioning->memory_mode;
    per_mode[d.vendor][label_value(mode)] += n;
    auto [it, fresh] = modes.emplace(d.vendor, mode);
    if (!fresh && it->second != mode) it->second = "mixed";
    for (const auto& p : d.partitions) {
      if (!p.profile || label_value(*p.profile).empty()) continue;
      if (d.partitioning->mode == "mig")
        ++profiles["mig-" + label_value(*p.profile)];
      else
        ++profiles[cat(
            {d.vendor, ".", label_value(d.partitioning->mode), "-", label_value(*p.profile)})];
    }
  }
  for (const auto& [vendor, n] : partitions) {
    labels.push_back({key(vendor + ".partitions"), std::to_string(n)});
    labels.push_back({key(vendor + ".partition-mode"), label_value(modes[vendor])});
    for (const auto& [mode, count] : per_mode[vendor])
      if (!mode.empty())
        labels.push_back({key(cat({vendor, ".partitions.", mode})), std::to_string(count)});
  }
  for (const auto& [profile, n] : profiles)
    labels.push_back({key(profile + ".count"), std::to_string(n)});
}

}  // namespace

Labels node_labels(const Inventory& inv, const std::string& prefix, const Registry& registry) {
  Labels labels;
  if (inv.devices.empty()) return labels;
  std::map<std::string, int> counts;
  for (const auto& d : inv.devices) ++counts[d.vendor];
  // The primary vendor (the one select, wheel and host-init name); its model facts come from
  // the devices a job would get (job_devices), not from whichever card sorts first.
  auto job = job_devices(inv, primary_vendor(inv, registry));
  if (job.empty()) return labels;
  const Device* first = job.front();
  auto key = [&](std::string_view name) { return cat({prefix, "/", name}); };
  labels.push_back({key("vendor"), first->vendor});
  labels.push_back({key("count"), std::to_string(counts[first->vendor])});
  if (first->arch && !label_value(*first->arch).empty())
    labels.push_back({key("arch"), label_value(*first->arch)});
  if (first->memory_total_bytes)
    labels.push_back({key("memory-gib"), std::to_string(*first->memory_total_bytes >> 30)});
  if (const auto* v = registry.vendor(first->vendor); v && !v->torch_device.empty())
    labels.push_back({key("torch-device"), std::string(v->torch_device)});
  if (auto product = label_value(gres_type(*first)); !product.empty())
    labels.push_back({key("product"), product});
  for (const auto& [vendor, n] : counts)
    labels.push_back({key(vendor + ".count"), std::to_string(n)});
  add_partition_labels(inv, key, labels);
  return labels;
}

void add_link_labels(const Topology& t, const std::string& prefix, Labels& labels) {
  struct Largest {
    std::string kind;
    size_t size = 0;
    int domains = 0;
  };
  std::map<std::string, Largest> by_vendor;
  // link_domains() comes largest first, so each vendor's first domain sets its size.
  for (const auto& d : link_domains(t)) {
    auto& l = by_vendor[t.devices[d.devices.front()].device->vendor];
    if (l.size == 0) l = {d.kind, d.devices.size(), 0};
    if (d.devices.size() == l.size) ++l.domains;
  }
  for (const auto& [vendor, l] : by_vendor) {
    auto key = [&](const std::string& name) { return cat({prefix, "/", vendor, ".", name}); };
    if (auto kind = label_value(l.kind); !kind.empty()) labels.push_back({key("link-kind"), kind});
    labels.push_back({key("link-domain-size"), std::to_string(l.size)});
    labels.push_back({key("link-domains"), std::to_string(l.domains)});
  }
}

std::string features_file(const Labels& labels) {
  std::string out = "# Node Feature Discovery local features, written by `anygpu k8s labels`.\n";
  for (const auto& [k, v] : labels) out += cat({k, "=", v, "\n"});
  return out;
}

Result<std::string> k8s_resource_for(const Inventory& inv, const std::string& vendor,
                                     const Registry& registry) {
  const auto* v = registry.vendor(vendor);
  if (!v) return bad_input(cat({"unknown vendor '", vendor, "'"}));
  if (v->k8s_resource.empty())
    return bad_input(cat({"no known device-plugin resource for ", vendor, "; pass --resource"}));
  std::string resource(v->k8s_resource);
  if (resource.find("{driver}") == std::string::npos) return resource;
  for (const auto* d : job_devices(inv, vendor))
    if (d->driver) return replace_placeholder(resource, "driver", d->driver->name);
  return bad_input(
      cat({"the ", vendor, " resource (", resource, ") depends on the kernel driver and no ",
           vendor, " device was found here; pass --resource"}));
}

namespace {

// The container's arguments. A PyTorchJob pod runs torchrun, which reads the training
// operator's PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT
// (pkg/controller.v1/pytorch/envvar.go and master.go, kubeflow/training-operator@
// 078ec30ff26649a07d2e28893c332d4cef70e233) and starts nprocPerNode processes with their own
// RANK, LOCAL_RANK and WORLD_SIZE. The operator's pod-level WORLD_SIZE is replicas ×
// nprocPerNode and RANK the pod index: a command started once per pod would wait forever for
// the ranks nobody starts. --no_python runs the user's command itself in each process.
std::vector<std::string> container_args(const JobRequest& r) {
  if (r.nnodes <= 1) return r.argv;
  std::vector<std::string> args = {"torchrun", "--no_python"};
  args.insert(args.end(), r.argv.begin(), r.argv.end());
  return args;
}

void pod_template(YAML::Emitter& out, const JobRequest& r, const std::string& container) {
  out << YAML::BeginMap;
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "labels"
      << YAML::Value << YAML::BeginMap << YAML::Key << "app.kubernetes.io/name" << YAML::Value
      << r.name << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << "anygpu"
      << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "restartPolicy" << YAML::Value << "Never";
  out << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap << YAML::Key
      << (r.label_prefix + "/vendor") << YAML::Value << r.vendor << YAML::EndMap;
  // Pod level: every container runs as 1001, never root, under the runtime's seccomp filter.
  out << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap << YAML::Key
      << "runAsNonRoot" << YAML::Value << true << YAML::Key << "runAsUser" << YAML::Value << 1001
      << YAML::Key << "runAsGroup" << YAML::Value << 1001 << YAML::Key << "seccompProfile"
      << YAML::Value << YAML::BeginMap << YAML::Key << "type" << YAML::Value << "RuntimeDefault"
      << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << container;
  out << YAML::Key << "image" << YAML::Value << YAML::DoubleQuoted << r.image;
  if (auto args = container_args(r); !args.empty()) {
    // args, not command: the image's ENTRYPOINT (e.g. `anygpu check` first) still runs.
    out << YAML::Key << "args" << YAML::Value << YAML::BeginSeq;
    for (const auto& a : args) out << YAML::DoubleQuoted << a;
    out << YAML::EndSeq;
  }
  out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
      << "name" << YAML::Value << "PYTHONUNBUFFERED" << YAML::Key << "value" << YAML::Value
      << YAML::DoubleQuoted << "1" << YAML::EndMap << YAML::EndSeq;
  // Extended resources go in limits only (requests default to them).
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap << YAML::Key << "limits"
      << YAML::Value << YAML::BeginMap << YAML::Key << r.resource << YAML::Value << r.gpus
      << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap << YAML::Key
      << "allowPrivilegeEscalation" << YAML::Value << false << YAML::Key << "runAsNonRoot"
      << YAML::Value << true << YAML::Key << "runAsUser" << YAML::Value << 1001 << YAML::Key
      << "capabilities" << YAML::Value << YAML::BeginMap << YAML::Key << "drop" << YAML::Value
      << YAML::Flow << std::vector<std::string>{"ALL"} << YAML::EndMap << YAML::Key
      << "seccompProfile" << YAML::Value << YAML::BeginMap << YAML::Key << "type" << YAML::Value
      << "RuntimeDefault" << YAML::EndMap << YAML::EndMap;
  // NCCL, RCCL, HCCL and DataLoader workers share memory through /dev/shm, which is 64 MiB in
  // a default pod: a memory-backed emptyDir (counted against the pod's memory) replaces it.
  out << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
      << "name" << YAML::Value << "dshm" << YAML::Key << "mountPath" << YAML::Value << "/dev/shm"
      << YAML::EndMap << YAML::EndSeq;
  out << YAML::EndMap << YAML::EndSeq;  // the container
  out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
      << "name" << YAML::Value << "dshm" << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap
      << YAML::Key << "medium" << YAML::Value << "Memory" << YAML::EndMap << YAML::EndMap
      << YAML::EndSeq;
  out << YAML::EndMap << YAML::EndMap;  // spec, template
}

}  // namespace

Result<std::string> job_manifest(const JobRequest& r) {
  // DNS-1035: the training operator's webhook refuses other PyTorchJob names (its Services
  // are named after the job), and a Job's pods carry the name too.
  if (!k8s_names::is_dns1035_label(r.name))
    return bad_input(cat({"--name \"", r.name,
                          "\": must be a DNS-1035 label (a lower-case letter first, then "
                          "lower-case letters, digits or '-', ending in a letter or digit; at "
                          "most 63)"}));
  if (auto why = k8s_names::label_prefix_problem(r.label_prefix); !why.empty())
    return bad_input(cat({"--label-prefix \"", r.label_prefix, "\": ", why}));
  if (r.image.empty() || r.image.find_first_of(" \t\n\r") != std::string::npos ||
      !valid_utf8(r.image))
    return bad_input(cat({"--image \"", r.image, "\" is not an image reference"}));
  if (auto why = k8s_names::extended_resource_problem(r.resource); !why.empty())
    return bad_input(cat({"--resource \"", r.resource, "\": ", why}));
  if (r.gpus < 1) return bad_input("--gpus must be at least 1");
  if (r.nnodes < 1) return bad_input("--nnodes must be at least 1");
  if (r.nnodes > 1 && r.argv.empty())
    return bad_input("--nnodes > 1: name the training command after --, torchrun starts it");
  for (const auto& a : r.argv)
    if (!valid_utf8(a) || a.find('\0') != std::string::npos)
      return bad_input(cat({"command argument is not UTF-8 text, which Kubernetes requires"}));

  YAML::Emitter out;
  out << YAML::BeginMap;
  bool multi = r.nnodes > 1;
  out << YAML::Key << "apiVersion" << YAML::Value << (multi ? "kubeflow.org/v1" : "batch/v1");
  out << YAML::Key << "kind" << YAML::Value << (multi ? "PyTorchJob" : "Job");
  out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "name"
      << YAML::Value << r.name << YAML::Key << "labels" << YAML::Value << YAML::BeginMap
      << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << "anygpu" << YAML::EndMap
      << YAML::EndMap;
  out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (!multi) {
    out << YAML::Key << "backoffLimit" << YAML::Value << 0;
    out << YAML::Key << "template" << YAML::Value;
    pod_template(out, r, "main");
  } else {
    // The training operator sets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and the PET_*
    // variables per pod and requires the container to be named "pytorch"; nprocPerNode
    // becomes PET_NPROC_PER_NODE for torchrun.
    out << YAML::Key << "nprocPerNode" << YAML::Value << YAML::DoubleQuoted
        << std::to_string(r.gpus);
    out << YAML::Key << "pytorchReplicaSpecs" << YAML::Value << YAML::BeginMap;
    for (auto [role, replicas] : {std::pair{"Master", 1}, std::pair{"Worker", r.nnodes - 1}}) {
      out << YAML::Key << role << YAML::Value << YAML::BeginMap << YAML::Key << "replicas"
          << YAML::Value << replicas << YAML::Key << "restartPolicy" << YAML::Value << "Never"
          << YAML::Key << "template" << YAML::Value;
      pod_template(out, r, "pytorch");
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  if (!out.good()) return internal_error(cat({"manifest emitter: ", out.GetLastError()}));
  return std::string(out.c_str()) + "\n";
}

}  // namespace anygpu
