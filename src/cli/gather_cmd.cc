// `anygpu gather DIR`: capture this host for a bug report or a test fixture.
#include <cstdio>

#include "cli/command.h"
#include "gather/gather.h"
#include "launch/command_line.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

// "host-name (2 files), kernel-log (1 file)"
std::string privacy_list(const GatherSummary& s) {
  std::vector<std::string> parts;
  for (const auto& p : s.privacy)
    parts.push_back(
        cat({p.kind, " (", std::to_string(p.files), p.files == 1 ? " file)" : " files)"}));
  return join(parts, ", ");
}

void report(const GatherSummary& s, const std::string& dir) {
  std::fprintf(stderr,
               "anygpu: gathered %zu files (%llu bytes), %zu symlinks, %zu directories into %s\n",
               s.files, static_cast<unsigned long long>(s.bytes), s.links, s.dirs, dir.c_str());
  std::fprintf(stderr,
               "anygpu: %s/%.*s lists what was copied and what was not (%zu files left out, %zu "
               "links not followed)\n",
               dir.c_str(), static_cast<int>(kGatherManifest.size()), kGatherManifest.data(),
               s.not_copied, s.not_followed);
  if (s.log_records)
    std::fprintf(stderr, "anygpu: kernel log: %zu of %zu records kept\n", s.log_kept,
                 s.log_records);
  if (s.privacy.empty())
    std::fprintf(stderr, "anygpu: no identifying data found\n");
  else if (s.redacted)
    std::fprintf(stderr, "anygpu: redacted: %s\n", privacy_list(s).c_str());
  else
    std::fprintf(stderr,
                 "anygpu: identifying data: %s; review before sharing, or gather with --redact\n",
                 privacy_list(s).c_str());
  std::fprintf(stderr, "anygpu: replay with: anygpu --root %s detect\n", dir.c_str());
}

}  // namespace

Command gather_command() {
  return {"gather", "copy what detect, health and doctor read into DIR (replay with --root DIR)",
          [](CLI::App& app) {
            auto dir = std::make_shared<std::string>();
            auto redact = std::make_shared<bool>(false);
            app.add_option("DIR", *dir, "destination (must not exist, or be empty)")->required();
            app.add_flag("--redact", *redact,
                         "replace host names, device UUIDs and serials, MAC addresses and user "
                         "names, and keep only the accelerators' kernel log records");
            return [dir, redact](const GlobalOptions& g) {
              auto opts = g.host_options();
              if (!opts) return fail(opts.error());
              HostRoot host(*opts);
              GatherOptions options{*redact, version_text(), own_argv()};
              auto summary = gather_host(host, *dir, options);
              if (!summary) return fail(summary.error());
              if (!g.quiet) report(*summary, *dir);
              return kExitOk;
            };
          }};
}

}  // namespace anygpu::cli
