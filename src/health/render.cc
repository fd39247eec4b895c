#include "health/render.h"

#include "util/strings.h"

namespace anygpu::health {

namespace {
nlohmann::ordered_json finding_json(const Finding& f) {
  return {{"code", f.code},
          {"severity", to_string(f.severity)},
          {"message", f.message},
          {"evidence", f.evidence},
          {"action", f.action}};
}

void finding_text(const Finding& f, std::string& out) {
  out += cat({"  [", to_string(f.severity), "] ", f.code, ": ", f.message, "\n"});
  out += cat({"      evidence: ", f.evidence, "\n"});
  out += cat({"      action:   ", f.action, "\n"});
}
}  // namespace

nlohmann::ordered_json health_to_json(const HealthReport& report) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : report.devices) {
    nlohmann::ordered_json findings = nlohmann::ordered_json::array();
    for (const auto& f : d.findings) findings.push_back(finding_json(f));
    devices.push_back({{"pci_bus_id", d.pci_bus_id},
                       {"vendor", d.vendor},
                       {"index", d.index},
                       {"health", to_string(d.health())},
                       {"findings", std::move(findings)}});
  }
  nlohmann::ordered_json host = nlohmann::ordered_json::array();
  for (const auto& f : report.host) host.push_back(finding_json(f));
  return {{"schema", "anygpu.health/v1"},
          {"devices", std::move(devices)},
          {"host_findings", std::move(host)},
          {"warnings", report.warnings}};
}

std::string health_to_text(const HealthReport& report) {
  std::string out;
  if (report.devices.empty()) out += "no accelerator found\n";
  for (const auto& d : report.devices) {
    out += cat({d.vendor, " ", std::to_string(d.index), "  ", d.pci_bus_id, "  ",
                to_string(d.health()), "\n"});
    for (const auto& f : d.findings) finding_text(f, out);
  }
  if (!report.host.empty()) {
    out += "host (events naming no listed device)\n";
    for (const auto& f : report.host) finding_text(f, out);
  }
  return out;
}

}  // namespace anygpu::health
