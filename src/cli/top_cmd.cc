// `anygpu top`: a live terminal view of every device, from the background collector. ANSI
// only (no curses): the alternate screen, redraw in place, raw keyboard for `q`. The terminal
// is restored on every way out (q, SIGINT, SIGTERM, SIGHUP). When stdout is not a terminal
// it prints plain-text snapshots instead.
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "cli/command.h"
#include "cli/seconds.h"
#include "health/health_client.h"
#include "metrics/collector.h"
#include "metrics/render.h"
#include "metrics/top_view.h"
#include "probe/probe.h"
#include "ps/processes.h"
#include "util/terminal_text.h"

namespace anygpu::cli {

namespace {

struct TopFlags {
  double interval = 1.0;
  int iterations = 0;  // 0: until q or a signal
  bool processes = true;
};

// The process pane's source: a /proc scan per frame (none with --no-processes).
using ProcessSource = std::function<std::optional<ps::ProcessScan>()>;

// The vendor libraries' process lists (NVML's running compute processes: memory per process on
// NVIDIA, holders /proc does not show), read through a health worker. A worker per frame would
// cost more than the frame, so the list is re-read at most every kLibraryRefresh and merged
// into every scan in between; warnings are not printed over the live view.
constexpr std::chrono::seconds kLibraryRefresh{5};

class LibraryProcesses {
 public:
  LibraryProcesses(const HostRoot& host, const Inventory& inventory)
      : host_(host), inventory_(inventory) {}
  void add_to(ps::ProcessScan& scan) {
    auto now = std::chrono::steady_clock::now();
    if (!read_ || now - read_at_ >= kLibraryRefresh) {
      library_ = worker::read_library_health(host_, inventory_);
      read_at_ = now;
      read_ = true;
    }
    ps::add_library_processes(host_, library_, scan);
  }

 private:
  const HostRoot& host_;
  const Inventory& inventory_;
  health::LibraryHealth library_;
  std::chrono::steady_clock::time_point read_at_{};
  bool read_ = false;
};

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_resized = 0;
void on_stop(int) {
  g_stop = 1;
}
void on_resize(int) {
  g_resized = 1;
}

void install_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop;  // no SA_RESTART: poll() returns at once on a signal
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  sa.sa_handler = on_resize;
  sigaction(SIGWINCH, &sa, nullptr);
}

void write_all(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(STDOUT_FILENO, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Raw keyboard (no line buffering, no echo; signals still work), alternate screen, hidden
// cursor: all undone by the destructor.
class TerminalSession {
 public:
  TerminalSession() {
    if (::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved_) == 0) {
      termios raw = saved_;
      raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
      raw.c_cc[VMIN] = 0;
      raw.c_cc[VTIME] = 0;
      raw_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
    }
    write_all("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J");
  }
  ~TerminalSession() {
    write_all("\x1b[0m\x1b[?25h\x1b[?1049l");
    if (raw_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  TerminalSession(const TerminalSession&) = delete;
  TerminalSession& operator=(const TerminalSession&) = delete;

 private:
  termios saved_{};
  bool raw_ = false;
};

TopLayout terminal_layout() {
  TopLayout l;
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    l.width = ws.ws_col;
    l.height = ws.ws_row;
  }
  const char* no_color = std::getenv("NO_COLOR");
  l.color = !(no_color && *no_color);  // https://no-color.org: set and non-empty
  return l;
}

// True when the user pressed q (or Q); waits at most until `deadline`.
bool wait_for_quit(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (g_stop || g_resized) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{STDIN_FILENO, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r <= 0) continue;  // timeout or a signal: the loop re-checks
    if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
      std::this_thread::sleep_until(deadline);  // stdin gone: keep drawing, no keys
      return false;
    }
    char buf[64];
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == 'q' || buf[i] == 'Q') return true;
  }
}

int run_live(MetricsCollector& collector, const TopFlags& f, std::chrono::milliseconds interval,
             const ProcessSource& processes) {
  TerminalSession term;
  auto next = std::chrono::steady_clock::now();
  for (int frame = 0; !g_stop && (f.iterations == 0 || frame < f.iterations); ++frame) {
    bool resized = g_resized;
    g_resized = 0;
    auto scan = processes();
    auto lines = render_top_frame(*collector.snapshot(), terminal_layout(), f.interval,
                                  scan ? &*scan : nullptr);
    std::string out = resized ? "\x1b[2J\x1b[H" : "\x1b[H";
    for (const auto& l : lines) out += l + "\x1b[K\r\n";
    out += "\x1b[J";
    write_all(out);
    if (!resized) next += interval;
    if (wait_for_quit(next)) break;
  }
  return kExitOk;
}

int run_plain(MetricsCollector& collector, const TopFlags& f, std::chrono::milliseconds interval,
              const ProcessSource& processes) {
  auto next = std::chrono::steady_clock::now();
  for (int frame = 0; !g_stop && (f.iterations == 0 || frame < f.iterations); ++frame) {
    auto s = collector.snapshot();
    std::printf("%s%s\n%s", frame ? "\n" : "", rfc3339(s->timestamp).c_str(),
                terminal_text(metrics_to_table(*s)).c_str());
    if (auto scan = processes()) {
      std::printf("\n");
      for (const auto& l : render_process_pane(*scan, *s, 200, 1 << 20))
        std::printf("%s\n", l.c_str());
    }
    std::fflush(stdout);
    if (f.iterations != 0 && frame + 1 >= f.iterations) break;
    next += interval;
    while (!g_stop && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return kExitOk;
}

}  // namespace

Command top_command() {
  return {"top", "live view of every device (bars for utilization, memory, temperature, power)",
          [](CLI::App& app) {
            auto f = std::make_shared<TopFlags>();
            app.add_option("--interval", f->interval, "seconds between samples (default 1)")
                ->type_name("SECONDS")
                ->check(seconds_in(0.1, 3600.0));
            app.add_option("-n,--iterations", f->iterations,
                           "frames to draw before exiting (default: until q or Ctrl-C)")
                ->type_name("N")
                ->check(CLI::Range(0, 1000000));
            app.add_flag("!--no-processes", f->processes,
                         "do not list the processes holding the devices below them");
            return [f](const GlobalOptions& g) {
              auto host = g.host_options();
              if (!host) return fail(host.error());
              auto interval = std::chrono::milliseconds(std::llround(f->interval * 1000));
              CollectorOptions opts;
              opts.interval = interval;
              opts.call_timeout = std::min(host->library_timeout, interval);
              install_handlers();
              auto collector = start_collector(*host, opts);
              if (!collector) return fail(collector.error());
              // Discovery once for the pane; the scan itself runs on every frame.
              std::optional<HostRoot> root;
              std::optional<Inventory> inventory;
              std::optional<LibraryProcesses> library;
              if (f->processes) {
                root.emplace(*host);
                inventory = probe(*root);
                library.emplace(*root, *inventory);
              }
              ProcessSource processes = [&]() -> std::optional<ps::ProcessScan> {
                if (!root) return std::nullopt;
                auto scan = ps::scan_processes(*root, *inventory);
                library->add_to(scan);
                return scan;
              };
              int rc = ::isatty(STDOUT_FILENO) ? run_live(**collector, *f, interval, processes)
                                               : run_plain(**collector, *f, interval, processes);
              (*collector)->stop();
              return rc;
            };
          }};
}

}  // namespace anygpu::cli
