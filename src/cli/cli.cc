#include "cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "cli/command.h"
#include "cli/help_dump.h"
#include "cli/seconds.h"
#include "host/deadline.h"
#include "host/host_options.h"
#include "launch/executor.h"
#include "probe/probe.h"
#include "registry/registry_override.h"
#include "registry/wheel_data.h"
#include "render/json_text.h"
#include "util/env_vars.h"
#include "util/regular_file.h"
#include "util/strings.h"
#include "util/suggest.h"
#include "util/terminal_text.h"

#ifndef ANYGPU_VERSION
#define ANYGPU_VERSION "0.0.0"
#endif
// The git description (`git describe`) taken when the build was configured; empty in builds
// from a release tarball, which carry only the version.
#ifndef ANYGPU_GIT_DESCRIPTION
#define ANYGPU_GIT_DESCRIPTION ""
#endif

namespace anygpu::cli {

std::string version_text() {
  std::string_view described = ANYGPU_GIT_DESCRIPTION;
  if (described.empty()) return cat({"anygpu ", ANYGPU_VERSION});
  return cat({"anygpu ", ANYGPU_VERSION, " (", described, ")"});
}

Result<HostOptions> GlobalOptions::host_options() const {
  // The same validation the C ABI (and so Python) applies to its option keys.
  HostOptionRequest request;
  if (!root.empty()) request.root = root;  // `--root ""` is refused before a command runs
  if (no_libs) request.no_libs = true;
  if (lib_timeout_ms) request.lib_timeout_ms = lib_timeout_ms;
  return resolve_host_options(request);
}

int exit_code(const Error& e) {
  return exit_code_for(e.kind);
}

int fail(const Error& e) {
  std::fprintf(stderr, "anygpu: %s\n", escape_control(e.message).c_str());
  return exit_code(e);
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
}

void print_text(const std::string& text) {
  print(terminal_text(text));
}

void print_json(const GlobalOptions& g, nlohmann::ordered_json document, bool pretty) {
  document["warnings"] = g.diagnostics.warnings();
  print(dump_json(document, pretty));
}

void report(const GlobalOptions& g, Diagnostic found) {
  bool warning = found.severity == Diagnostic::Severity::warning;
  bool shown = warning ? !g.quiet : g.verbose && !g.quiet;
  // One line each: a host string cannot break it (escaped) nor reach the terminal raw.
  auto line = terminal_text(escape_control(found.text()));
  if (g.diagnostics.add(std::move(found)) && shown)
    std::fprintf(stderr, "anygpu: %s%s\n", warning ? "warning: " : "", line.c_str());
}

void report(const GlobalOptions& g, const Diagnostics& found) {
  for (const auto& d : found.all()) report(g, d);
}

void report_warnings(const GlobalOptions& g, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) report(g, Diagnostic::warning({}, w));
}

Inventory discover(const GlobalOptions& g, const HostRoot& host) {
  auto inventory = probe(host);
  report(g, inventory.diagnostics);
  return inventory;
}

CLI::Validator seconds_in(double lo, double hi) {
  char range[64];
  std::snprintf(range, sizeof range, "%g..%g", lo, hi);
  std::string text_range = range;
  return CLI::Validator(
      [lo, hi, text_range](std::string& text) -> std::string {
        auto v = parse_double(text);  // finite numbers only: "nan" and "inf" are refused
        if (v && *v >= lo && *v <= hi) return {};
        return cat({"expected seconds in ", text_range, ", got '", text, "'"});
      },
      "SECONDS");
}

namespace {

// The first word that is not a global option (nor its value): the command the user meant.
std::optional<std::string_view> command_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") return std::nullopt;
    if (a == "--root" || a == "--lib-timeout") {
      ++i;
      continue;
    }
    if (a.starts_with("-")) continue;
    return a;
  }
  return std::nullopt;
}

// A read that failed for want of descriptors or memory, even one its caller took as "absent",
// makes the answer incomplete: a command that would exit 0 says so and exits 3 instead. `run`
// keeps its child's status (the child ran) and only says it. A command that failed anyway has
// said why. A host file that was not a regular file (a FIFO as a sysfs attribute) is named.
struct ReadCounts {
  uint64_t resources = resource_error_count();
  uint64_t unexpected = unexpected_file_count();
};

int after_reads(const ReadCounts& before, int rc, bool is_run) {
  if (uint64_t n = unexpected_file_count() - before.unexpected; n > 0)
    std::fprintf(stderr, "anygpu: warning: %s (read as absent%s)\n",
                 escape_control(unexpected_file_summary()).c_str(),
                 n == 1 ? "" : cat({"; ", std::to_string(n - 1), " more such"}).c_str());
  uint64_t n = resource_error_count() - before.resources;
  if (n == 0 || (rc != kExitOk && !is_run)) return rc;
  bool fails = !is_run;
  std::fprintf(
      stderr, "anygpu: %s: %s; %llu system call%s failed for it, so %s\n",
      fails ? "error" : "warning", escape_control(resource_error_summary()).c_str(),
      static_cast<unsigned long long>(n), n == 1 ? "" : "s",
      is_run ? "anygpu's own view of the host was incomplete" : "the output is incomplete");
  return fails ? kExitHostLacks : rc;
}

// stdout is where the answer goes (and what `eval` reads): losing it is a failure.
bool stdout_lost(int& err) {
  errno = 0;
  bool bad = std::fflush(stdout) != 0 || std::ferror(stdout);
  err = errno;
  return bad;
}

std::vector<Command> commands() {
  return {detect_command(),      check_command(),     select_command(),   run_command(),
          metrics_command(),     top_command(),       exporter_command(), doctor_command(),
          wheel_command(),       host_init_command(), init_command(),     cdi_command(),
          slurm_command(),       k8s_command(),       vendors_command(),  gather_command(),
          health_command(),      ps_command(),        topo_command(),     image_command(),
          hang_report_command(), preflight_command(), report_command()};
}
}  // namespace

int run(int argc, char** argv) {
  // Before the command table is built: its help may list the registry's vendors. Then every
  // variable that steers anygpu, judged as the C ABI judges it (util/env_vars.h).
  if (auto registry = prepare_registry(); !registry) return fail(registry.error());
  if (auto wheels = prepare_wheel_data(); !wheels) return fail(wheels.error());
  if (auto env = check_steering_env(); !env) return fail(env.error());
  CLI::App app{"anygpu: run machine-learning experiments on any accelerator vendor", "anygpu"};
  const std::string version = version_text();
  app.set_version_flag("--version", version);
  app.require_subcommand(1);
  GlobalOptions g;
  app.add_option("--root", g.root, "read the host beneath DIR (env ANYGPU_ROOT)")->type_name("DIR");
  app.add_flag("--json", g.json, "machine-readable output on stdout");
  app.add_flag("--no-libs", g.no_libs, "never load vendor libraries (env ANYGPU_NO_LIBS=1)");
  app.add_option("--lib-timeout", g.lib_timeout_ms,
                 "milliseconds allowed for vendor library calls (env ANYGPU_LIB_TIMEOUT_MS)")
      ->type_name("MS")
      ->check(CLI::Range(1u, 600000u));
  app.add_flag("-q,--quiet", g.quiet, "only errors on stderr");
  app.add_flag("-v,--verbose", g.verbose, "diagnostics on stderr (env ANYGPU_LOG=debug)");

  std::function<int(const GlobalOptions&)> chosen;
  const char* chosen_name = "";
  auto table = commands();
  for (auto& c : table) {
    auto* sub = app.add_subcommand(c.name, c.help);
    sub->fallthrough();
    auto fn = c.setup(*sub);
    sub->callback([&chosen, &chosen_name, fn, name = c.name] {
      chosen = fn;
      chosen_name = name;
    });
  }
  if (auto word = command_word(argc, argv)) {
    std::vector<std::string_view> names;
    for (const auto& c : table) names.emplace_back(c.name);
    if (std::find(names.begin(), names.end(), *word) == names.end()) {
      std::fprintf(stderr, "anygpu: unknown command '%.*s'%s; see anygpu --help\n",
                   static_cast<int>(word->size()), word->data(),
                   did_you_mean(*word, names).c_str());
      return kExitUsage;
    }
  }
  if (argc == 2 && argv[1] == kHelpDumpFlag) {
    print(describe_cli(app, version));
    return kExitOk;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (app.count("--root") && g.root.empty())
    return fail(bad_input("--root: empty path (give a directory, or omit it for the real host)"));
  if (auto log = read_env("ANYGPU_LOG"); log && *log) g.verbose = true;  // checked above
  ReadCounts reads;
  int rc = chosen ? chosen(g) : kExitUsage;
  rc = after_reads(reads, rc, chosen_name == std::string_view("run"));
  if (int err = 0; stdout_lost(err)) {
    std::fprintf(stderr, "anygpu: cannot write to standard output: %s\n",
                 err ? std::strerror(err) : "write error");
    // `run` keeps its own failures apart from the command's statuses.
    rc = chosen_name == std::string_view("run") ? kExitRunFailed : kExitCheckFailed;
  }
  std::fflush(stderr);
  // A vendor library call that never returned still owns a thread: skip static destructors.
  if (abandoned_workers() > 0) std::_Exit(rc);
  return rc;
}

}  // namespace anygpu::cli
