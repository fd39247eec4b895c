// The frames `anygpu top` draws: pure functions of a snapshot and the terminal size, so the
// layout is tested without a terminal.
#pragma once

#include <string>

#include "metrics/sample.h"

namespace anygpu {

struct TopLayout {
  int width = 80;
  int height = 24;
  bool color = true;  // ANSI colours (off for NO_COLOR)
};

// One full screen: a header, two lines per device (identity; utilization, memory, temperature
// and power bars), the state of any backend that is down. Lines never exceed the width;
// devices that do not fit the height are counted in a last line. No cursor movement inside.
std::vector<std::string> render_top_frame(const MetricsSnapshot& snapshot, const TopLayout& layout,
                                          double interval_seconds);

}  // namespace anygpu
