#include "metrics/top_terminal.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <thread>

namespace anygpu::top {

namespace {

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_resized = 0;
void on_stop(int) {
  g_stop = 1;
}
void on_resize(int) {
  g_resized = 1;
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop;  // no SA_RESTART: poll() returns at once on a signal
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  sa.sa_handler = on_resize;
  sigaction(SIGWINCH, &sa, nullptr);
}

bool stop_requested() {
  return g_stop != 0;
}

bool take_resized() {
  bool resized = g_resized != 0;
  g_resized = 0;
  return resized;
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

// Raw keyboard: no line buffering, no echo; signals still work.
TerminalSession::TerminalSession() {
  if (::isatty(STDIN_FILENO) && ::tcgetattr(STDIN_FILENO, &saved_) == 0) {
    termios raw = saved_;
    raw.c_lflag &= ~static_cast<tcflag_t>(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    raw_ = ::tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
  }
  write_all("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J");
}

TerminalSession::~TerminalSession() {
  write_all("\x1b[0m\x1b[?25h\x1b[?1049l");
  if (raw_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
}

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

}  // namespace anygpu::top
