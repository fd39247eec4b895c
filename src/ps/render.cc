#include "ps/render.h"

#include <cstdio>

#include "util/strings.h"

namespace anygpu::ps {

namespace {

// {"device", "pid"?, "command"?}: a partition's key ("<bus id>/<index>") is its device.
nlohmann::ordered_json locks_to_json(const std::map<std::string, LockHolder>& locks) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& [key, h] : locks) {
    nlohmann::ordered_json j{{"device", key}};
    if (h.pid) j["pid"] = *h.pid;
    if (h.command) j["command"] = *h.command;
    list.push_back(std::move(j));
  }
  return list;
}

std::string locks_to_text(const std::map<std::string, LockHolder>& locks) {
  if (locks.empty()) return "no device is locked by anygpu run\n";
  std::string out = "\nLOCKED BY anygpu run\n";
  char line[256];
  std::snprintf(line, sizeof line, "%8s  %-16s %s\n", "PID", "COMMAND", "DEVICE");
  out += line;
  for (const auto& [key, h] : locks) {
    std::string pid = h.pid ? std::to_string(*h.pid) : "?";
    std::snprintf(line, sizeof line, "%8s  %-16.16s %s\n", pid.c_str(),
                  h.command.value_or("?").c_str(), key.c_str());
    out += line;
  }
  return out;
}

// A device held through one of its partitions is shown as that partition ("0000:05:00.0/3").
std::vector<std::string> shown_devices(const ProcessInfo& p) {
  std::vector<std::string> out;
  for (const auto& bus : p.devices) {
    bool by_partition = false;
    for (const auto& id : p.partitions)
      if (id.starts_with(bus + "/")) {
        out.push_back(id);
        by_partition = true;
      }
    if (!by_partition) out.push_back(bus);
  }
  return out;
}

}  // namespace

nlohmann::ordered_json processes_to_json(const std::vector<ProcessInfo>& processes, int hidden,
                                         const Locks& locks) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& p : processes) {
    nlohmann::ordered_json j{{"pid", p.pid}};
    if (p.user) j["user"] = *p.user;
    j["command"] = p.command;
    j["devices"] = p.devices;
    if (!p.partitions.empty()) j["partitions"] = p.partitions;
    if (p.memory_bytes) j["memory_bytes"] = *p.memory_bytes;
    if (!p.engine_ns.empty()) j["engines"] = p.engine_ns;
    if (!p.engine_cycles.empty()) j["engine_cycles"] = p.engine_cycles;
    const auto& a = p.attribution;
    if (a.container) j["container"] = {{"runtime", a.container->runtime}, {"id", a.container->id}};
    if (a.pod_uid) {
      j["pod"] = {{"uid", *a.pod_uid}};
      if (p.pod_name) j["pod"]["name"] = *p.pod_name;
      if (p.pod_namespace) j["pod"]["namespace"] = *p.pod_namespace;
    }
    if (a.slurm) {
      j["slurm"] = {{"job_id", a.slurm->job_id}};
      if (a.slurm->step) j["slurm"]["step"] = *a.slurm->step;
    }
    list.push_back(std::move(j));
  }
  nlohmann::ordered_json doc{{"schema", "anygpu.processes/v1"}, {"processes", std::move(list)}};
  if (hidden) doc["hidden_processes"] = hidden;
  if (locks) doc["locks"] = locks_to_json(*locks);
  return doc;
}

std::string processes_to_text(const std::vector<ProcessInfo>& processes, int hidden,
                              const Locks& locks) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%8s  %-12s %-16s %-10s %s\n", "PID", "USER", "COMMAND",
                "MEMORY", "DEVICES / OWNER");
  out += line;
  for (const auto& p : processes) {
    std::string mem = p.memory_bytes ? std::to_string(*p.memory_bytes >> 20) + " MiB" : "-";
    std::string owner = join(shown_devices(p), ",");
    const auto& a = p.attribution;
    if (a.pod_uid && p.pod_name && p.pod_namespace)
      owner += " pod " + *p.pod_namespace + "/" + *p.pod_name;
    else if (a.pod_uid)
      owner += " pod " + *a.pod_uid;
    if (a.container) owner += " " + a.container->runtime + " " + a.container->id.substr(0, 12);
    if (a.slurm)
      owner += " slurm job " + a.slurm->job_id + (a.slurm->step ? " step " + *a.slurm->step : "");
    std::snprintf(line, sizeof line, "%8d  %-12.12s %-16.16s %-10s %s\n", p.pid,
                  p.user.value_or("?").c_str(), p.command.c_str(), mem.c_str(), owner.c_str());
    out += line;
  }
  if (hidden)
    out += cat({std::to_string(hidden),
                " processes of other users could not be inspected "
                "(run as root to see them)\n"});
  if (locks) out += locks_to_text(*locks);
  return out;
}

}  // namespace anygpu::ps
