// The CLI is one table of commands; each registers its own flags and runs against the
// global options. Exit codes come from one map (util/exit_codes.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host/host_root.h"
#include "model/inventory.h"
#include "util/diagnostics.h"
#include "util/exit_codes.h"
#include "util/result.h"

namespace anygpu {
class MetricsBackend;
}

namespace anygpu::cli {

struct GlobalOptions {
  std::string root;
  bool json = false;
  bool no_libs = false;
  bool quiet = false;
  bool verbose = false;
  unsigned lib_timeout_ms = 0;

  // Not a flag: the invocation's one channel for diagnostics, filled through report().
  // Mutable because commands get the options as const.
  mutable Diagnostics diagnostics;

  // Flags over environment over defaults.
  Result<HostOptions> host_options() const;
};

struct Command {
  const char* name;
  const char* help;
  // Adds the command's flags; returns the function that runs it once parsing succeeded.
  std::function<std::function<int(const GlobalOptions&)>(CLI::App&)> setup;
};

// "anygpu VERSION (GIT DESCRIPTION)": what --version prints and a gather's manifest records.
std::string version_text();

int exit_code(const Error& e);
// Prints "anygpu: <message>" to stderr and returns the mapped exit code.
int fail(const Error& e);
// Machine-readable output (JSON, shell, dotenv, YAML, CSV) as is; each format quotes its own.
void print(const std::string& text);
// Human output: host strings in it cannot reach the terminal as control sequences.
void print_text(const std::string& text);
// A JSON document with the invocation's warnings as its top-level "warnings" (replacing a
// "warnings" the renderer wrote: whatever it held was reported too).
void print_json(const GlobalOptions& g, nlohmann::ordered_json document, bool pretty = true);

// Hands diagnostics to the invocation's channel. Each one not reported before is printed on
// stderr at once (warnings as "anygpu: warning: WHERE: MESSAGE" unless -q, notes with -v only),
// so it comes before the output or error it explains, and is kept for print_json.
void report(const GlobalOptions& g, const Diagnostics& found);
void report(const GlobalOptions& g, Diagnostic found);
// Warnings handed over as text, each naming its file or library (health's, a library worker's).
void report_warnings(const GlobalOptions& g, const std::vector<std::string>& warnings);
// probe(), with discovery's diagnostics reported: how every command discovers the host.
Inventory discover(const GlobalOptions& g, const HostRoot& host);
// discover(), then the metrics backends for its devices (metrics, top, exporter).
std::vector<std::shared_ptr<MetricsBackend>> discover_backends(const GlobalOptions& g,
                                                               const HostOptions& host);

Command detect_command();
Command vendors_command();
Command gather_command();
Command check_command();
Command select_command();
Command run_command();
Command hang_report_command();
Command report_command();
Command preflight_command();
Command cdi_command();
Command slurm_command();
Command k8s_command();
Command metrics_command();
Command top_command();
Command exporter_command();
Command doctor_command();
Command host_init_command();
Command wheel_command();
Command init_command();
Command health_command();
Command ps_command();
Command topo_command();
Command image_command();

}  // namespace anygpu::cli
