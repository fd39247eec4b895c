// Prometheus text exposition format 0.0.4. Label values are escaped as the format requires
// (backslash, double quote, newline) and made valid UTF-8 (a scraper refuses the whole page
// over one ill-formed label value); numbers are written in the shortest form that reads
// back to the same double.
#include "metrics/prometheus.h"

#include <charconv>
#include <cmath>
#include <functional>

#include "metrics/schema.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace anygpu {

namespace {

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Whole numbers (bytes, hertz) in plain digits: 1300000000, not 1.3e+09.
  if (std::floor(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

std::string escape(std::string_view raw) {
  std::string s = valid_utf8(raw);
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string label_text(const Labels& labels) {
  if (labels.empty()) return {};
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ',';
    out += labels[i].first + "=\"" + escape(labels[i].second) + "\"";
  }
  return out + "}";
}

Labels gpu_labels(const DeviceSample& d) {
  Labels l{{"vendor", d.vendor}, {"gpu", std::to_string(d.index)}, {"pci_bus_id", d.pci_bus_id}};
  if (d.uuid) l.emplace_back("uuid", *d.uuid);
  if (d.name) l.emplace_back("model", *d.name);
  return l;
}

// A partition's series: its parent's labels, then the partition's index (SPEC "Partitions"),
// the id `detect` and `select` use for it, and its profile where known.
Labels partition_labels(const DeviceSample& d, const PartitionSample& p) {
  auto l = gpu_labels(d);
  l.emplace_back("partition", std::to_string(p.index));
  l.emplace_back("partition_id", p.id);
  if (p.profile) l.emplace_back("profile", *p.profile);
  return l;
}

class Writer {
 public:
  // One family: HELP and TYPE once, then its samples (the format wants them together).
  void family(std::string_view name, std::string_view type, std::string_view help,
              const std::function<void(Writer&)>& samples) {
    pending_.clear();
    samples(*this);
    if (!pending_.empty())  // a family without samples is left out entirely
      out_ += cat({"# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n", pending_});
  }
  void sample(std::string_view name, const Labels& labels, double v) {
    pending_ += cat({name, label_text(labels), " ", number(v), "\n"});
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_, pending_;
};

// One row of the metric table (metrics/schema.h): a series per device, or per device and label.
void device_family(Writer& w, const MetricsSnapshot& s, const DeviceMetric& m) {
  std::string name(m.prometheus);
  w.family(name, to_string(m.type), m.help, [&](Writer& w) {
    for (const auto& d : s.devices) {
      if (m.scalar) {
        if (const auto& v = d.*(m.scalar)) w.sample(name, gpu_labels(d), *v);
        if (m.partition)
          for (const auto& p : d.partitions)
            if (const auto& v = p.*(m.partition)) w.sample(name, partition_labels(d, p), *v);
        continue;
      }
      for (const auto& [key, v] : d.*(m.labelled)) {
        auto l = gpu_labels(d);
        l.emplace_back(std::string(m.label), key);
        w.sample(name, l, v);
      }
    }
  });
}

}  // namespace

PrometheusLabels prometheus_gpu_labels(const DeviceSample& d) {
  return gpu_labels(d);
}

std::string prometheus_sample(std::string_view name, const PrometheusLabels& labels, double v) {
  return cat({name, label_text(labels), " ", number(v), "\n"});
}

std::string render_prometheus(const MetricsSnapshot& snapshot,
                              std::chrono::system_clock::time_point now) {
  const auto& s = snapshot;
  Writer w;
  w.family("anygpu_gpu_info", "gauge", "Device identity; always 1.", [&](Writer& w) {
    for (const auto& d : s.devices) w.sample("anygpu_gpu_info", gpu_labels(d), 1);
  });
  for (const auto& m : device_metrics()) device_family(w, s, m);
  w.family(
      "anygpu_backend_up", "gauge",
      "1 when the backend's last sample succeeded within its deadline, else 0.", [&](Writer& w) {
        for (const auto& b : s.backends)
          w.sample("anygpu_backend_up", {{"vendor", b.vendor}, {"source", b.source}}, b.up ? 1 : 0);
      });
  w.family("anygpu_backend_crashes_total", "counter",
           "Times the backend's vendor-library worker was lost (crashed, exited, hung past its "
           "deadline, or sent a malformed reply) and replaced; source is the library.",
           [&](Writer& w) {
             for (const auto& b : s.backends)
               if (b.library)
                 w.sample("anygpu_backend_crashes_total",
                          {{"vendor", b.vendor}, {"source", b.library->api}},
                          static_cast<double>(b.library->crashes));
           });
  w.family("anygpu_sample_age_seconds", "gauge",
           "Seconds since the backend's devices were last sampled successfully.", [&](Writer& w) {
             for (const auto& b : s.backends) {
               if (b.last_success == std::chrono::system_clock::time_point{}) continue;
               double age = std::chrono::duration<double>(now - b.last_success).count();
               w.sample("anygpu_sample_age_seconds", {{"vendor", b.vendor}, {"source", b.source}},
                        age < 0 ? 0 : age);
             }
           });
  return w.take();
}

}  // namespace anygpu
