// The frames `anygpu top` draws: pure functions of a snapshot and the terminal size, so the
// layout is tested without a terminal.
#pragma once

#include <string>

#include "metrics/sample.h"
#include "ps/processes.h"

namespace anygpu {

struct TopLayout {
  int width = 80;
  int height = 24;
  bool color = true;  // ANSI colours (off for NO_COLOR)
};

// One full screen: a header, two lines per device (identity; utilization, memory, temperature
// and power bars), the state of any backend that is down. Lines never exceed the width;
// devices that do not fit the height are counted in a last line. No cursor movement inside.
// With `processes`, a pane below the devices lists the holders (as many as the height leaves).
std::vector<std::string> render_top_frame(const MetricsSnapshot& snapshot, const TopLayout& layout,
                                          double interval_seconds,
                                          const ps::ProcessScan* processes = nullptr);

// The process pane alone: a header, then one line per holder (pid, user, command, the devices'
// indices as in the device list, device memory, owner: pod, Slurm job or container), at most
// `max_lines` lines in all (the rest counted in the last), none wider than `width`.
std::vector<std::string> render_process_pane(const ps::ProcessScan& processes,
                                             const MetricsSnapshot& snapshot, int width,
                                             int max_lines);
// "pod:0f1e2d3c", "job:77.0", "docker:4a5b6c7d8e9f" or "-".
std::string short_owner(const ps::Attribution& a);

}  // namespace anygpu
