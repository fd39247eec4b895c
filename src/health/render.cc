#include "health/render.h"

#include "util/strings.h"

namespace anygpu::health {

namespace {
nlohmann::ordered_json finding_json(const Finding& f) {
  return {{"code", f.code},
          {"severity", severity_word(f.severity)},
          {"message", f.message},
          {"evidence", f.evidence},
          {"action", f.action}};
}

nlohmann::ordered_json source_json(const SourceReading& s, bool with_essential) {
  nlohmann::ordered_json j = {{"source", s.source}, {"read", s.read}};
  if (with_essential) j["essential"] = s.essential;
  if (!s.read) j["reason"] = s.reason;
  if (!s.detail.empty()) j["detail"] = s.detail;
  return j;
}

nlohmann::ordered_json sources_json(const std::vector<SourceReading>& sources,
                                    bool with_essential) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : sources) out.push_back(source_json(s, with_essential));
  return out;
}

// "kernel-log (permission-denied: /dev/kmsg: Operation not permitted)"
std::string unread_text(const SourceReading& s) {
  return cat({s.source, " (", s.reason, s.detail.empty() ? "" : ": ", s.detail, ")"});
}

bool node_wide(const SourceReading& s, const HealthReport& report) {
  for (const auto& n : report.sources)
    if (n.source == s.source) return true;
  return false;
}

// The device's own sources it could not read (the node's are said once, above the devices).
void unread_line(const DeviceHealth& d, const HealthReport& report, std::string& out) {
  std::string list;
  for (const auto& s : d.sources)
    if (!s.read && !node_wide(s, report)) list += cat({list.empty() ? "" : ", ", unread_text(s)});
  if (!list.empty()) out += cat({"  not read: ", list, "\n"});
}

void finding_text(const Finding& f, std::string& out) {
  out += cat({"  [", severity_word(f.severity), "] ", f.code, ": ", f.message, "\n"});
  out += cat({"      evidence: ", f.evidence, "\n"});
  out += cat({"      action:   ", f.action, "\n"});
}
}  // namespace

nlohmann::ordered_json health_to_json(const HealthReport& report) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : report.devices) {
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const auto& f : d.findings) findings.push_back(finding_json(f));
    nlohmann::ordered_json j = {{"pci_bus_id", d.pci_bus_id},
                                {"vendor", d.vendor},
                                {"index", d.index},
                                {"health", to_string(d.health())},
                                {"findings", std::move(findings)},
                                {"sources", sources_json(d.sources, true)}};
    if (!d.partitions.empty()) j["partitions"] = d.partitions;
    devices.push_back(std::move(j));
  }
  nlohmann::ordered_json host = nlohmann::ordered_json::array();
  for (const auto& f : report.host) host.push_back(finding_json(f));
  return {{"schema", "anygpu.health/v1"},
          {"devices", std::move(devices)},
          {"host_findings", std::move(host)},
          {"sources", sources_json(report.sources, false)},
          {"warnings", report.warnings}};
}

std::string health_to_text(const HealthReport& report) {
  std::string out;
  for (const auto& s : report.sources)
    if (!s.read) out += cat({"not read: ", unread_text(s), "\n"});
  if (report.devices.empty()) out += "no accelerator found\n";
  for (const auto& d : report.devices) {
    out += cat({d.vendor, " ", std::to_string(d.index), "  ", d.pci_bus_id, "  ",
                to_string(d.health()), "\n"});
    if (!d.partitions.empty())
      out += cat({"  partitions (", to_string(d.health()),
                  " with their device): ", join(d.partitions, " "), "\n"});
    unread_line(d, report, out);
    for (const auto& f : d.findings) finding_text(f, out);
  }
  if (!report.host.empty()) {
    out += "host (events naming no listed device)\n";
    for (const auto& f : report.host) finding_text(f, out);
  }
  return out;
}

}  // namespace anygpu::health
