// `anygpu health`'s evaluation, shared by every command that acts on it (`health --slurm`,
// `k8s taint`): the same flags, discovery, vendor libraries and findings.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"
#include "health/report.h"

namespace anygpu::cli {

struct HealthFlags {
  std::vector<std::string> devices;  // --device
  std::string since;                 // --since
};

// --device and --since.
void add_health_flags(CLI::App& app, HealthFlags& flags);

// Discovery, the vendor libraries' health facts (read in a worker) and the evaluation, as
// `anygpu health` does them. The report's warnings are already reported.
Result<health::HealthReport> evaluate_node_health(const GlobalOptions& g, const HealthFlags& flags);

// "warning" or "critical": the level at which a node is taken out of service.
void add_action_level(CLI::Option* option);
Severity action_level(const std::string& word);

// One warning per `unknown` device, naming the essential sources not read: a blind spot takes
// no node out of service, and is never silently healthy.
void warn_blind(const GlobalOptions& g, const health::HealthReport& report,
                std::string_view consequence);

}  // namespace anygpu::cli
