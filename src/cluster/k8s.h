// Kubernetes: Node Feature Discovery labels for the discovered devices, and Job / PyTorchJob
// manifests that request the vendor's device-plugin resource on nodes carrying those labels.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/inventory.h"
#include "registry/registry.h"
#include "topo/topology.h"
#include "util/result.h"

namespace anygpu {

// NFD accepts sub-namespaces of feature.node.kubernetes.io without extra configuration
// (other namespaces need the master's -extra-label-ns), so this is the default prefix.
inline constexpr std::string_view kDefaultLabelPrefix = "anygpu.feature.node.kubernetes.io";

using Labels = std::vector<std::pair<std::string, std::string>>;

// vendor, count, arch, memory-gib, torch-device, product (of the primary vendor: the one select
// picks with no config), plus <vendor>.count for every vendor present. Empty when there is no
// device.
Labels node_labels(const Inventory& inventory, const std::string& prefix,
                   const Registry& registry = Registry::builtin());
// Link domains (topo/closeness.h: devices every two of which are directly linked), per vendor
// that has one: <vendor>.link-kind (of the largest domain, "xgmi"), <vendor>.link-domain-size
// (its devices) and <vendor>.link-domains (how many domains of that size). Hosts without links
// get none.
void add_link_labels(const Topology& topology, const std::string& prefix, Labels& labels);

// The features.d file: a comment line, then name=value lines.
std::string features_file(const Labels& labels);

// The device-plugin resource of `vendor` ("nvidia.com/gpu"), with {driver} filled from a
// discovered device of that vendor ("gpu.intel.com/xe").
Result<std::string> k8s_resource_for(const Inventory& inventory, const std::string& vendor,
                                     const Registry& registry = Registry::builtin());

struct JobRequest {
  std::string name = "anygpu-job";
  std::string image;
  int gpus = 1;    // per pod
  int nnodes = 1;  // > 1: a kubeflow.org/v1 PyTorchJob with one Master and nnodes-1 Workers
  std::vector<std::string> argv;  // container args (the image's ENTRYPOINT is kept)
  std::string vendor;
  std::string resource;      // device-plugin resource
  std::string label_prefix;  // for the nodeSelector
};

// The manifest (YAML). Names, image and argv are checked: bad_input names what is wrong.
Result<std::string> job_manifest(const JobRequest& request);

}  // namespace anygpu
