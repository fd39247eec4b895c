// What the exporter answers: GET/HEAD /metrics (the collector's latest snapshot in Prometheus
// text format 0.0.4) and /healthz; 404 for other paths, 405 for other methods.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "exporter/http_request.h"
#include "exporter/http_response.h"
#include "metrics/sample.h"

namespace anygpu::exporter {

inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

using SnapshotSource = std::function<std::shared_ptr<const MetricsSnapshot>()>;
using PrometheusRenderer =
    std::function<std::string(const MetricsSnapshot&, std::chrono::system_clock::time_point)>;

// The rendered /metrics body, cached per snapshot: scrapes between two samples share one
// string. A cached body is re-rendered after `max_age` even for the same snapshot, because the
// body carries anygpu_sample_age_seconds, which must keep growing while a sample is stuck.
class MetricsPage {
 public:
  MetricsPage(SnapshotSource source, PrometheusRenderer render,
              std::chrono::milliseconds max_age = std::chrono::milliseconds(250));

  // Null while the source has no snapshot yet.
  std::shared_ptr<const std::string> body();
  size_t renders() const;

 private:
  SnapshotSource source_;
  PrometheusRenderer render_;
  std::chrono::milliseconds max_age_;
  mutable std::mutex mu_;
  std::shared_ptr<const MetricsSnapshot> snapshot_;
  std::shared_ptr<const std::string> body_;
  std::chrono::steady_clock::time_point rendered_at_{};
  size_t renders_ = 0;
};

http::Response route(const http::Request& request, MetricsPage& metrics);

}  // namespace anygpu::exporter
