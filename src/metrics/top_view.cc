#include "metrics/top_view.h"

#include <algorithm>
#include <cstdio>

#include "metrics/render.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr const char* kReset = "\x1b[0m";
constexpr double kTemperatureScale = 100.0;  // °C at a full bar; 85+ is shown red

// Visible width of an ASCII-only string with ANSI escapes.
size_t visible(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    ++n;
  }
  return n;
}

const char* colour_for(double fraction) {
  if (fraction >= 0.85) return "\x1b[31m";  // red
  if (fraction >= 0.60) return "\x1b[33m";  // yellow
  return "\x1b[32m";                        // green
}

// "LABEL[|||||     text]" with `inner` cells between the brackets; the text is right-aligned
// over the bar. An absent value is an empty bar reading "n/a".
std::string bar(const char* label, std::optional<double> fraction, const std::string& text,
                int inner, bool color, double alert_at = 0.85) {
  inner = std::max(inner, 4);
  std::string cells(static_cast<size_t>(inner), ' ');
  int filled = 0;
  if (fraction) {
    double f = std::clamp(*fraction, 0.0, 1.0);
    filled = static_cast<int>(f * inner + 0.5);
    for (int i = 0; i < filled; ++i) cells[static_cast<size_t>(i)] = '|';
  }
  std::string shown = fraction ? text : (text.empty() ? "n/a" : text);
  if (static_cast<int>(shown.size()) <= inner)
    cells.replace(cells.size() - shown.size(), shown.size(), shown);
  std::string out = std::string(label) + "[";
  if (color && fraction) {
    double f = std::clamp(*fraction, 0.0, 1.0);
    const char* c = f >= alert_at ? "\x1b[31m" : colour_for(f * 0.85 / alert_at);
    auto split = static_cast<size_t>(std::min(filled, inner));
    out += c + cells.substr(0, split) + kReset + cells.substr(split);
  } else {
    out += cells;
  }
  return out + "]";
}

std::string clip(std::string s, int width) {
  if (visible(s) <= static_cast<size_t>(width)) return s;
  // Only lines without escapes are long enough to need clipping in practice; clip bytes.
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size() && n < static_cast<size_t>(width); ++i) {
    if (s[i] == '\x1b') {
      size_t j = s.find('m', i);
      if (j == std::string::npos) break;
      out += s.substr(i, j - i + 1);
      i = j;
      continue;
    }
    out += s[i];
    ++n;
  }
  if (out.find('\x1b') != std::string::npos) out += kReset;
  return out;
}

std::string gib(double v) {
  return fixed(v / (1024.0 * 1024 * 1024), v >= 100.0 * (1 << 30) ? 0 : 1);
}

}  // namespace

std::string short_owner(const ps::Attribution& a) {
  if (a.pod_uid) return "pod:" + a.pod_uid->substr(0, 8);
  if (a.slurm) return "job:" + a.slurm->job_id + (a.slurm->step ? "." + *a.slurm->step : "");
  if (a.container) return a.container->runtime + ":" + a.container->id.substr(0, 12);
  return "-";
}

namespace {

std::string memory_short(std::optional<uint64_t> bytes) {
  if (!bytes) return "-";
  double b = static_cast<double>(*bytes);
  if (b >= 1024.0 * 1024 * 1024) return gib(b) + "G";
  return fixed(b / (1024.0 * 1024), 0) + "M";
}

// Padded to `n`, never cut (a bus id in the devices column is longer than the column).
std::string pad(std::string s, size_t n, bool right = false) {
  if (s.size() >= n) return s;
  return right ? std::string(n - s.size(), ' ') + s : s + std::string(n - s.size(), ' ');
}

}  // namespace

std::vector<std::string> render_process_pane(const ps::ProcessScan& scan,
                                             const MetricsSnapshot& snapshot, int width,
                                             int max_lines) {
  std::vector<std::string> lines;
  if (max_lines < 1) return lines;
  // User, command and owner are the host's: escaped before the frame's own escapes join them.
  auto row = [](std::string pid, std::string_view user, std::string_view command, std::string gpus,
                std::string memory, std::string_view owner) {
    return pad(std::move(pid), 8, true) + " " + pad(escape_control(user).substr(0, 10), 10) + " " +
           pad(escape_control(command).substr(0, 16), 16) + " " + pad(std::move(gpus), 8) + " " +
           pad(std::move(memory), 7, true) + "  " + escape_control(owner);
  };
  std::string title = row("PID", "USER", "COMMAND", "GPUS", "MEMORY", "OWNER");
  if (scan.hidden > 0) title += "  (" + std::to_string(scan.hidden) + " processes unreadable)";
  lines.push_back(clip(title, width));
  if (scan.processes.empty() && max_lines > 1)
    lines.push_back(clip("       (no processes hold a device)", width));
  size_t shown = 0;
  for (const auto& p : scan.processes) {
    bool fits =
        static_cast<int>(lines.size()) + 1 < max_lines ||
        (static_cast<int>(lines.size()) + 1 == max_lines && shown + 1 == scan.processes.size());
    if (!fits) break;
    std::string gpus;
    for (const auto& bus : p.devices) {
      auto d = std::find_if(snapshot.devices.begin(), snapshot.devices.end(),
                            [&](const DeviceSample& x) { return x.pci_bus_id == bus; });
      if (!gpus.empty()) gpus += ",";
      gpus += d != snapshot.devices.end() ? std::to_string(d->index) : bus;
    }
    lines.push_back(clip(row(std::to_string(p.pid), p.user.value_or("?"), p.command, gpus,
                             memory_short(p.memory_bytes), short_owner(p.attribution)),
                         width));
    ++shown;
  }
  if (shown < scan.processes.size())
    lines.push_back(
        clip("... " + std::to_string(scan.processes.size() - shown) + " more processes", width));
  return lines;
}

std::vector<std::string> render_top_frame(const MetricsSnapshot& s, const TopLayout& layout,
                                          double interval_seconds,
                                          const ps::ProcessScan* processes) {
  const int width = std::max(layout.width, 40);
  const int height = std::max(layout.height, 3);
  std::vector<std::string> lines;
  std::string title = "anygpu top  " + rfc3339(s.timestamp) + "  every " +
                      fixed(interval_seconds, interval_seconds < 1 ? 1 : 0) + "s  " +
                      std::to_string(s.devices.size()) + " devices  (q quits)";
  lines.push_back(layout.color ? "\x1b[1m" + clip(title, width) + kReset : clip(title, width));

  std::vector<std::string> footer;
  for (const auto& b : s.backends)
    if (!b.up)
      footer.push_back(clip(
          "backend " + b.vendor + "/" + b.source + " down: " + b.error.value_or("unknown"), width));
  if (s.devices.empty()) footer.push_back("no devices found");

  // Four bars share a line: "GPU[" "MEM[" "TMP[" "PWR[" + "]" + gaps, 2 columns of indent.
  const int inner = (width - 2 - 4 * 5 - 3) / 4;
  int room = height - 1 - static_cast<int>(footer.size());
  size_t shown = 0;
  for (const auto& d : s.devices) {
    bool last_fits = room >= 2 && (shown + 1 == s.devices.size() || room >= 3);
    if (!last_fits) break;
    std::string head = fixed(d.index, 0) + " " + d.vendor + " " + d.pci_bus_id + "  " +
                       escape_control(d.name.value_or("(unnamed)"));
    if (auto it = d.clocks_hertz.find("graphics"); it != d.clocks_hertz.end())
      head += "  " + fixed(it->second / 1e6, 0) + " MHz";
    lines.push_back(clip(head, width));

    std::optional<double> mem_fraction;
    std::string mem_text;
    if (d.memory_used_bytes && d.memory_total_bytes && *d.memory_total_bytes > 0) {
      mem_fraction = *d.memory_used_bytes / *d.memory_total_bytes;
      mem_text = gib(*d.memory_used_bytes) + "/" + gib(*d.memory_total_bytes) + "G";
    } else if (d.memory_used_bytes) {
      mem_text = gib(*d.memory_used_bytes) + "G";
    }
    std::optional<double> util = d.utilization_ratio;
    std::string util_text = util ? fixed(*util * 100, 0) + "%" : "";
    std::optional<double> temp_fraction;
    std::string temp_text;
    if (d.temperature_celsius) {
      temp_fraction = *d.temperature_celsius / kTemperatureScale;
      temp_text = fixed(*d.temperature_celsius, 0) + "C";
    }
    std::optional<double> power_fraction;
    std::string power_text;
    if (d.power_watts) {
      power_text = fixed(*d.power_watts, 0) + "W";
      if (d.power_limit_watts && *d.power_limit_watts > 0) {
        power_fraction = *d.power_watts / *d.power_limit_watts;
        power_text += cat({"/", fixed(*d.power_limit_watts, 0), "W"});  // GCC bug 105651
      }
    }
    std::string bars = "  " + bar("GPU", util, util_text, inner, layout.color) + " " +
                       bar("MEM", mem_fraction, mem_text, inner, layout.color, 0.9) + " " +
                       bar("TMP", temp_fraction, temp_text, inner, layout.color) + " " +
                       bar("PWR", power_fraction, power_text, inner, layout.color, 0.95);
    lines.push_back(clip(bars, width));
    room -= 2;
    ++shown;
  }
  if (shown < s.devices.size()) {
    lines.push_back(clip(
        "... " + std::to_string(s.devices.size() - shown) + " more devices (enlarge the terminal)",
        width));
  } else if (processes) {
    // What the devices leave: a blank line, then the pane.
    int left = height - static_cast<int>(lines.size()) - static_cast<int>(footer.size()) - 1;
    if (left >= 1) {
      lines.emplace_back();
      for (auto& l : render_process_pane(*processes, s, width, left)) lines.push_back(std::move(l));
    }
  }
  for (auto& f : footer) lines.push_back(std::move(f));
  return lines;
}

}  // namespace anygpu
