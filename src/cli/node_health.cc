#include "cli/node_health.h"

#include "health/health.h"
#include "health/health_client.h"
#include "util/strings.h"

namespace anygpu::cli {

void add_health_flags(CLI::App& app, HealthFlags& flags) {
  app.add_option("--device", flags.devices,
                 "only these devices: bus id, VENDOR:INDEX or INDEX (repeatable, or "
                 "comma-separated)")
      ->delimiter(',')
      ->type_name("SEL");
  app.add_option("--since", flags.since, "only kernel-log events this recent (30s, 15m, 2h, 7d)")
      ->type_name("DURATION");
}

Result<health::HealthReport> evaluate_node_health(const GlobalOptions& g,
                                                  const HealthFlags& flags) {
  auto opts = g.host_options();
  if (!opts) return opts.error();
  health::HealthOptions ho;
  ho.devices = flags.devices;
  if (!flags.since.empty()) {
    auto s = health::parse_duration(flags.since);
    if (!s) return s.error();
    ho.since_seconds = *s;
  }
  HostRoot host(*opts);
  auto inv = discover(g, host);
  // NVML's ECC, row-remapping, retired-page and throttle facts, read in a worker.
  auto library = worker::read_library_health(host, inv);
  ho.library = &library;
  auto evaluated = health::evaluate_health(host, inv, ho);
  if (!evaluated) return evaluated.error();
  // The library's warnings are in the report's already.
  report_warnings(g, evaluated->warnings);
  return evaluated;
}

void add_action_level(CLI::Option* option) {
  option->check(CLI::IsMember({"warning", "critical"}))->type_name("SEVERITY");
}

Severity action_level(const std::string& word) {
  return word == "warning" ? Severity::warning : Severity::error;
}

void warn_blind(const GlobalOptions& g, const health::HealthReport& report,
                std::string_view consequence) {
  std::vector<std::string> lines;
  for (const auto& d : report.devices) {
    if (d.health() != health::Health::unknown) continue;
    std::vector<std::string> unread;
    for (const auto& s : d.sources)
      if (s.essential && !s.read) unread.push_back(cat({s.source, " (", s.reason, ")"}));
    lines.push_back(cat({d.vendor, " ", std::to_string(d.index), " ", d.pci_bus_id,
                         ": health unknown, not read: ", join(unread, ", "), "; ", consequence}));
  }
  report_warnings(g, lines);
}

}  // namespace anygpu::cli
