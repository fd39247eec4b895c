#include "ps/pod_resources.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>

#include "ps/grpc_unix.h"
#include "ps/protobuf_wire.h"
#include "util/strings.h"

namespace anygpu::ps {

namespace {

// Bounds on what one node's reply may hold; past them the reply is refused, not cut.
constexpr size_t kMaxPods = 10000;
constexpr size_t kMaxContainers = 1000;
constexpr size_t kMaxDeviceGroups = 1000;
constexpr size_t kMaxDeviceIds = 4096;
constexpr size_t kMaxIdBytes = 256;

// A DNS-1123 subdomain (pod names) or label (namespaces): what the API server admits.
bool kubernetes_name(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'))
      return false;
  return std::isalnum(static_cast<unsigned char>(s.front())) &&
         std::isalnum(static_cast<unsigned char>(s.back()));
}

bool printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

Result<bool> text_field(const protobuf::Field& f, std::string& out, size_t limit,
                        std::string_view what) {
  if (f.type != protobuf::kLength)
    return bad_input(cat({"pod-resources: ", what, " not a string"}));
  if (f.bytes.size() > limit) return bad_input(cat({"pod-resources: ", what, " too long"}));
  out.assign(f.bytes);
  return true;
}

// One element of a repeated sub-message field: at most `limit` of them, each parsed by `parse`.
template <class T, class Parse>
Result<bool> append_message(const protobuf::Field& f, std::vector<T>& to, size_t limit,
                            std::string_view what, Parse parse) {
  if (f.type != protobuf::kLength)
    return bad_input(cat({"pod-resources: ", what, " not a message"}));
  if (to.size() >= limit) return bad_input(cat({"pod-resources: too many ", what, "s"}));
  auto m = parse(f.bytes);
  if (!m) return m.error();
  to.push_back(std::move(*m));
  return true;
}

// The fields the client reads, by number, from kubelet's api/pod-resources v1 messages
// (ContainerDevices, ContainerResources, PodResources); others are skipped.
Result<PodDevices> parse_devices(std::string_view m) {
  PodDevices d;
  auto walked = protobuf::for_each_field(m, [&](const protobuf::Field& f) -> Result<bool> {
    if (f.number == 1) return text_field(f, d.resource_name, kMaxIdBytes, "resource_name");
    if (f.number != 2) return true;
    if (d.device_ids.size() >= kMaxDeviceIds)
      return bad_input("pod-resources: too many device ids");
    d.device_ids.emplace_back();
    return text_field(f, d.device_ids.back(), kMaxIdBytes, "device id");
  });
  if (!walked) return walked.error();
  return d;
}

Result<PodContainer> parse_container(std::string_view m) {
  PodContainer c;
  auto walked = protobuf::for_each_field(m, [&](const protobuf::Field& f) -> Result<bool> {
    if (f.number == 1) return text_field(f, c.name, 253, "container name");
    if (f.number == 2)
      return append_message(f, c.devices, kMaxDeviceGroups, "device group", parse_devices);
    return true;
  });
  if (!walked) return walked.error();
  return c;
}

Result<PodResources> parse_pod(std::string_view m) {
  PodResources p;
  auto walked = protobuf::for_each_field(m, [&](const protobuf::Field& f) -> Result<bool> {
    if (f.number == 1) return text_field(f, p.name, 253, "pod name");
    if (f.number == 2) return text_field(f, p.namespace_, 253, "namespace");
    if (f.number == 3)
      return append_message(f, p.containers, kMaxContainers, "container", parse_container);
    return true;
  });
  if (!walked) return walked.error();
  return p;
}

// "card1-0" (Intel's GPU plugin: the DRM card name, a dash, the share index) → "card1".
std::optional<std::string> intel_card(std::string_view id) {
  auto dash = id.rfind('-');
  if (dash == std::string_view::npos || !id.starts_with("card")) return std::nullopt;
  auto n = id.substr(4, dash - 4), share = id.substr(dash + 1);
  if (!parse_uint(n) || !parse_uint(share)) return std::nullopt;
  return std::string(id.substr(0, dash));
}

}  // namespace

Result<std::vector<PodResources>> parse_list_response(std::string_view message) {
  std::vector<PodResources> pods;
  auto walked = protobuf::for_each_field(message, [&](const protobuf::Field& f) -> Result<bool> {
    if (f.number != 1) return true;
    auto added = append_message(f, pods, kMaxPods, "pod", parse_pod);
    // A pod whose name or namespace the API server would not admit is dropped, not reported.
    if (added && !(kubernetes_name(pods.back().name) && kubernetes_name(pods.back().namespace_)))
      pods.pop_back();
    return added;
  });
  if (!walked) return walked.error();
  return pods;
}

Result<std::vector<PodResources>> list_pod_resources(const HostRoot& host, std::string_view socket,
                                                     std::chrono::milliseconds deadline) {
  GrpcCall call;
  call.socket = std::string(socket);
  call.method = std::string(kPodResourcesList);
  call.deadline = deadline;
  auto reply = grpc_unary_call(host, call);
  if (!reply) return reply.error();
  return parse_list_response(*reply);
}

std::string device_for_id(const Inventory& inv, std::string_view resource_name,
                          std::string_view device_id) {
  if (!printable(device_id)) return {};
  // NVIDIA's plugin: the GPU UUID, with "::N" for a time-sliced replica.
  std::string_view id = device_id.substr(0, device_id.find("::"));
  auto bus = PciAddress::parse(id);
  auto card = resource_name.starts_with("gpu.intel.com/") ? intel_card(id) : std::nullopt;
  for (const auto& d : inv.devices) {
    if (d.uuid && !d.uuid->empty() && *d.uuid == id) return d.pci.address.str();
    // AMD's plugin: the PCI address.
    if (bus && d.pci.address.str() == bus->str()) return d.pci.address.str();
    if (card && d.card_node && *d.card_node == "/dev/dri/" + *card) return d.pci.address.str();
  }
  return {};
}

void attach_pod_names(const Inventory& inv, const std::vector<PodResources>& pods,
                      std::vector<ProcessInfo>& processes) {
  // Device (bus id) → the pods it is allocated to.
  std::map<std::string, std::set<size_t>> holders;
  for (size_t i = 0; i < pods.size(); ++i)
    for (const auto& c : pods[i].containers)
      for (const auto& group : c.devices)
        for (const auto& id : group.device_ids)
          if (auto bus = device_for_id(inv, group.resource_name, id); !bus.empty())
            holders[bus].insert(i);
  // Each pod uid → the one pod that was allocated every device its processes hold; SIZE_MAX
  // once two processes disagree or one's devices fit several pods (a shared GPU).
  constexpr size_t kConflict = SIZE_MAX;
  std::map<std::string, size_t> by_uid;
  for (const auto& p : processes) {
    if (!p.attribution.pod_uid) continue;
    std::optional<std::set<size_t>> candidates;
    for (const auto& bus : p.devices) {
      auto h = holders.find(bus);
      if (h == holders.end()) {  // a device no pod was allocated: a privileged container's
        candidates = std::set<size_t>{};
        break;
      }
      if (!candidates) {
        candidates = h->second;
        continue;
      }
      std::set<size_t> both;
      std::set_intersection(candidates->begin(), candidates->end(), h->second.begin(),
                            h->second.end(), std::inserter(both, both.end()));
      *candidates = std::move(both);
    }
    if (!candidates || candidates->empty()) continue;  // no vote
    size_t pod = candidates->size() == 1 ? *candidates->begin() : kConflict;
    auto [it, fresh] = by_uid.emplace(*p.attribution.pod_uid, pod);
    if (!fresh && it->second != pod) it->second = kConflict;
  }
  // A pod that two uids claim is no one's.
  std::map<size_t, int> claims;
  for (const auto& [uid, pod] : by_uid)
    if (pod != kConflict) ++claims[pod];
  for (auto& p : processes) {
    if (!p.attribution.pod_uid) continue;
    auto it = by_uid.find(*p.attribution.pod_uid);
    if (it == by_uid.end() || it->second == kConflict || claims[it->second] != 1) continue;
    p.pod_name = pods[it->second].name;
    p.pod_namespace = pods[it->second].namespace_;
  }
}

std::optional<std::string> name_pods(const HostRoot& host, const Inventory& inv,
                                     const std::string& socket, std::chrono::milliseconds deadline,
                                     std::vector<ProcessInfo>& processes) {
  if (socket.empty()) return std::nullopt;
  bool in_pod = std::any_of(processes.begin(), processes.end(),
                            [](const auto& p) { return p.attribution.pod_uid.has_value(); });
  if (!in_pod) return std::nullopt;
  auto pods = list_pod_resources(host, socket, deadline);
  if (!pods) return cat({socket, ": pod-resources List: ", pods.error().message});
  attach_pod_names(inv, *pods, processes);
  return std::nullopt;
}

}  // namespace anygpu::ps
