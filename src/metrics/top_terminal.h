// The terminal side of `anygpu top`: ANSI only (no curses). Raw keyboard, the alternate screen
// and a hidden cursor for the session's lifetime; SIGINT, SIGTERM and SIGHUP ask the loop to
// stop (so the destructor restores the terminal on every way out), SIGWINCH to redraw.
#pragma once

#include <termios.h>

#include <chrono>
#include <string>

#include "metrics/top_view.h"

namespace anygpu::top {

// Installed once, before any thread starts (no SA_RESTART: poll() returns at once).
void install_signal_handlers();
bool stop_requested();
// True once after each SIGWINCH.
bool take_resized();

// Every byte of `s` to stdout (retried on EINTR; given up on when stdout is gone).
void write_all(const std::string& s);

class TerminalSession {
 public:
  TerminalSession();
  ~TerminalSession();
  TerminalSession(const TerminalSession&) = delete;
  TerminalSession& operator=(const TerminalSession&) = delete;

 private:
  termios saved_{};
  bool raw_ = false;
};

// The terminal's size, and colours unless NO_COLOR is set and non-empty.
TopLayout terminal_layout();

// True when the user pressed q (or Q); returns earlier on a signal, at `deadline` otherwise.
bool wait_for_quit(std::chrono::steady_clock::time_point deadline);

}  // namespace anygpu::top
