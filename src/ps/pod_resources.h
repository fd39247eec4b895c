// The kubelet's pod-resources API (kubernetes/kubelet pkg/apis/podresources/v1/api.proto):
// which pod and container each device-plugin device is allocated to, and the rule that puts
// a pod's name and namespace on the processes `anygpu ps` found.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/inventory.h"
#include "ps/processes.h"
#include "util/result.h"

namespace anygpu::ps {

constexpr std::string_view kPodResourcesSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";
constexpr std::string_view kPodResourcesList = "/v1.PodResourcesLister/List";

struct PodDevices {
  std::string resource_name;            // "nvidia.com/gpu"
  std::vector<std::string> device_ids;  // as the device plugin advertised them
};
struct PodContainer {
  std::string name;
  std::vector<PodDevices> devices;
};
struct PodResources {
  std::string name, namespace_;
  std::vector<PodContainer> containers;
};

// A ListPodResourcesResponse. Fields this does not use (cpu_ids, memory, topology, dynamic
// resources) are skipped; a pod whose name or namespace is not a Kubernetes name is dropped.
Result<std::vector<PodResources>> parse_list_response(std::string_view message);

Result<std::vector<PodResources>> list_pod_resources(const HostRoot& host, std::string_view socket,
                                                     std::chrono::milliseconds deadline);

// The device a device-plugin id names, as a PCI bus id; empty when no rule matches.
std::string device_for_id(const Inventory& inv, std::string_view resource_name,
                          std::string_view device_id);

// Names the pods of processes whose cgroup placed them in a pod: see docs/ps.md for the rule.
void attach_pod_names(const Inventory& inv, const std::vector<PodResources>& pods,
                      std::vector<ProcessInfo>& processes);

// Asks the kubelet's pod-resources `socket` (beneath the root) for the pods of `processes`,
// only when one of them is in a pod, and names them. Empty `socket`: nothing is asked. An
// error is what went wrong ("SOCKET: pod-resources List: …"); the processes keep their uids.
std::optional<std::string> name_pods(const HostRoot& host, const Inventory& inv,
                                     const std::string& socket, std::chrono::milliseconds deadline,
                                     std::vector<ProcessInfo>& processes);

}  // namespace anygpu::ps
