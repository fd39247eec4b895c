// The CLI is one table of commands; each registers its own flags and runs against the
// global options. Exit codes come from one map (util/exit_codes.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "host/host_root.h"
#include "util/exit_codes.h"
#include "util/result.h"

namespace anygpu::cli {

struct GlobalOptions {
  std::string root;
  bool json = false;
  bool no_libs = false;
  bool quiet = false;
  bool verbose = false;
  unsigned lib_timeout_ms = 0;

  // Flags over environment over defaults.
  Result<HostOptions> host_options() const;
};

struct Command {
  const char* name;
  const char* help;
  // Adds the command's flags; returns the function that runs it once parsing succeeded.
  std::function<std::function<int(const GlobalOptions&)>(CLI::App&)> setup;
};

int exit_code(const Error& e);
// Prints "anygpu: <message>" to stderr and returns the mapped exit code.
int fail(const Error& e);
// Machine-readable output (JSON, shell, dotenv, YAML, CSV) as is; each format quotes its own.
void print(const std::string& text);
// Human output: host strings in it cannot reach the terminal as control sequences.
void print_text(const std::string& text);

Command detect_command();
Command vendors_command();
Command gather_command();
Command check_command();
Command select_command();
Command run_command();
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

}  // namespace anygpu::cli
