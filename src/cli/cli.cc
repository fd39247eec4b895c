#include "cli/cli.h"

#include <cstdio>
#include <cstdlib>

#include "cli/command.h"
#include "cli/help_dump.h"
#include "host/deadline.h"
#include "util/strings.h"

#ifndef ANYGPU_VERSION
#define ANYGPU_VERSION "0.0.0"
#endif
// The git description (`git describe`) taken when the build was configured; empty in builds
// from a release tarball, which carry only the version.
#ifndef ANYGPU_GIT_DESCRIPTION
#define ANYGPU_GIT_DESCRIPTION ""
#endif

namespace anygpu::cli {

Result<HostOptions> GlobalOptions::host_options() const {
  auto opts = HostOptions::from_environment();
  if (!opts) return opts;
  if (!root.empty()) opts->root = root;
  if (no_libs) opts->load_libraries = false;
  if (lib_timeout_ms) opts->library_timeout = std::chrono::milliseconds(lib_timeout_ms);
  if (opts->root != "/" && !HostRoot(*opts).is_dir("/"))
    return bad_input(cat({"--root ", opts->root, ": not a directory"}));
  return opts;
}

int exit_code(const Error& e) {
  switch (e.kind) {
    case ErrorKind::bad_input:
      return kExitUsage;
    case ErrorKind::host:
      return kExitHostLacks;
    case ErrorKind::internal:
      return kExitCheckFailed;
  }
  return kExitCheckFailed;
}

int fail(const Error& e) {
  std::fprintf(stderr, "anygpu: %s\n", e.message.c_str());
  return exit_code(e);
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
}

namespace {
std::string version_text() {
  std::string_view described = ANYGPU_GIT_DESCRIPTION;
  if (described.empty()) return cat({"anygpu ", ANYGPU_VERSION});
  return cat({"anygpu ", ANYGPU_VERSION, " (", described, ")"});
}

std::vector<Command> commands() {
  return {detect_command(),  check_command(),     select_command(),   run_command(),
          metrics_command(), top_command(),       exporter_command(), doctor_command(),
          wheel_command(),   host_init_command(), init_command(),     cdi_command(),
          slurm_command(),   k8s_command(),       vendors_command(),  gather_command(),
          health_command(),  ps_command()};
}
}  // namespace

int run(int argc, char** argv) {
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
  auto table = commands();
  for (auto& c : table) {
    auto* sub = app.add_subcommand(c.name, c.help);
    sub->fallthrough();
    auto fn = c.setup(*sub);
    sub->callback([&chosen, fn] { chosen = fn; });
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
  if (const char* log = std::getenv("ANYGPU_LOG"); log && std::string_view(log) == "debug")
    g.verbose = true;
  int rc = chosen ? chosen(g) : kExitUsage;
  std::fflush(stdout);
  std::fflush(stderr);
  // A vendor library call that never returned still owns a thread: skip static destructors.
  if (abandoned_workers() > 0) std::_Exit(rc);
  return rc;
}

}  // namespace anygpu::cli
