#include "metrics/top.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "metrics/collector.h"
#include "metrics/render.h"
#include "metrics/top_terminal.h"
#include "metrics/top_view.h"
#include "probe/probe.h"
#include "ps/processes.h"
#include "util/exit_codes.h"
#include "util/terminal_text.h"

namespace anygpu {

namespace {

// A library worker per frame would cost more than the frame, so the library's process list is
// re-read at most every kLibraryRefresh and merged into every scan in between; its warnings are
// not printed over the live view.
constexpr std::chrono::seconds kLibraryRefresh{5};

// The process pane's source: a /proc scan per frame over the shared inventory.
class ProcessSource {
 public:
  ProcessSource(const HostRoot& host, const Inventory& inventory, LibraryHealthReader library)
      : host_(host), inventory_(inventory), read_library_(std::move(library)) {}

  ps::ProcessScan scan() {
    auto scan = ps::scan_processes(host_, inventory_);
    if (!read_library_) return scan;
    auto now = std::chrono::steady_clock::now();
    if (!read_ || now - read_at_ >= kLibraryRefresh) {
      library_ = read_library_(host_, inventory_);
      read_at_ = now;
      read_ = true;
    }
    ps::add_library_processes(host_, library_, scan);
    return scan;
  }

 private:
  const HostRoot& host_;
  const Inventory& inventory_;
  LibraryHealthReader read_library_;
  health::LibraryHealth library_;
  std::chrono::steady_clock::time_point read_at_{};
  bool read_ = false;
};

struct Frames {
  MetricsCollector& collector;
  ProcessSource* processes;  // null with --no-processes
  double interval_seconds;
  int iterations;
  std::chrono::milliseconds interval;

  bool more(int frame) const {
    return !top::stop_requested() && (iterations == 0 || frame < iterations);
  }
  std::optional<ps::ProcessScan> scan() const {
    return processes ? std::optional(processes->scan()) : std::nullopt;
  }
};

int run_live(const Frames& f) {
  top::TerminalSession term;
  auto next = std::chrono::steady_clock::now();
  for (int frame = 0; f.more(frame); ++frame) {
    bool resized = top::take_resized();
    auto scan = f.scan();
    auto lines = render_top_frame(*f.collector.snapshot(), top::terminal_layout(),
                                  f.interval_seconds, scan ? &*scan : nullptr);
    std::string out = resized ? "\x1b[2J\x1b[H" : "\x1b[H";
    for (const auto& l : lines) out += l + "\x1b[K\r\n";
    out += "\x1b[J";
    top::write_all(out);
    if (!resized) next += f.interval;
    if (top::wait_for_quit(next)) break;
  }
  return kExitOk;
}

int run_plain(const Frames& f) {
  auto next = std::chrono::steady_clock::now();
  for (int frame = 0; f.more(frame); ++frame) {
    auto s = f.collector.snapshot();
    std::printf("%s%s\n%s", frame ? "\n" : "", rfc3339(s->timestamp).c_str(),
                terminal_text(metrics_to_table(*s)).c_str());
    if (auto scan = f.scan()) {
      std::printf("\n");
      for (const auto& l : render_process_pane(*scan, *s, 200, 1 << 20))
        std::printf("%s\n", l.c_str());
    }
    std::fflush(stdout);
    if (f.iterations != 0 && frame + 1 >= f.iterations) break;
    next += f.interval;
    while (!top::stop_requested() && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return kExitOk;
}

}  // namespace

Result<int> run_top(const TopOptions& o) {
  auto interval = std::chrono::milliseconds(std::llround(o.interval_seconds * 1000));
  CollectorOptions co;
  co.interval = interval;
  co.call_timeout = std::min(o.host.library_timeout, interval);
  top::install_signal_handlers();  // before the collector's threads start
  HostRoot host(o.host);
  const Inventory inventory = probe(host);  // once: the collector and the pane share it
  if (o.report) o.report(inventory.diagnostics);
  auto collector = start_collector(host, inventory, co);
  if (!collector) return collector.error();
  std::optional<ProcessSource> processes;
  if (o.processes) processes.emplace(host, inventory, o.library_health);
  Frames frames{**collector, processes ? &*processes : nullptr, o.interval_seconds, o.iterations,
                interval};
  int rc = ::isatty(STDOUT_FILENO) ? run_live(frames) : run_plain(frames);
  (*collector)->stop();
  return rc;
}

}  // namespace anygpu
