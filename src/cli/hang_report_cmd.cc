// `anygpu hang-report DIR`: what the beats of a `run --debug-hangs` launch say. Exit 0: no
// hang (every rank beat within the threshold or exited), 1: a hang, 2: bad input (no such
// directory, no beat files, a malformed beat naming FILE:1:COLUMN).
#include <chrono>
#include <memory>

#include "cli/command.h"
#include "launch/hang_beats.h"
#include "launch/hang_report.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct HangReportFlags {
  std::string dir;
  std::string threshold;  // seconds; empty: the beats' own
};

int hang_report(const HangReportFlags& f, const GlobalOptions& g) {
  uint64_t threshold = 0;
  if (!f.threshold.empty()) {
    auto t = parse_uint(f.threshold);
    if (!t || *t < 1 || *t > 31536000 || f.threshold.starts_with('+'))
      return fail(bad_input(cat({"--threshold '", escape_control(f.threshold),
                                 "': expected seconds from 1 to 31536000"})));
    threshold = *t;
  }
  auto ranks = read_beats(f.dir);
  if (!ranks) return fail(ranks.error());
  if (ranks->empty())
    return fail(bad_input(cat({escape_control(f.dir),
                               ": holds no beat files (rank-N.beat); was it the --hang-dir of "
                               "a run --debug-hangs whose ranks use anygpu.torch?"})));
  int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  auto verdict = judge_hang(*ranks, now, threshold);
  if (g.json)
    print_json(g, hang_report_json(f.dir, *ranks, verdict));
  else
    print_text(hang_report_text(f.dir, *ranks, verdict));
  return verdict.hang ? kExitCheckFailed : kExitOk;
}

}  // namespace

Command hang_report_command() {
  return {"hang-report", "which rank of a run --debug-hangs launch stopped first, and where",
          [](CLI::App& app) {
            auto f = std::make_shared<HangReportFlags>();
            app.add_option("dir", f->dir, "the launch's hang directory (--hang-dir)")
                ->type_name("DIR")
                ->required();
            app.add_option("--threshold", f->threshold,
                           "seconds without a beat that make a rank stalled (default: the "
                           "launch's --debug-hangs value, recorded in the beats)")
                ->type_name("SECONDS");
            return [f](const GlobalOptions& g) { return hang_report(*f, g); };
          }};
}

}  // namespace anygpu::cli
