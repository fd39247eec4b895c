#include "exporter/routes.h"

namespace anygpu::exporter {

MetricsPage::MetricsPage(SnapshotSource source, PrometheusRenderer render,
                         std::chrono::milliseconds max_age)
    : source_(std::move(source)), render_(std::move(render)), max_age_(max_age) {}

std::shared_ptr<const std::string> MetricsPage::body() {
  auto snap = source_();
  if (!snap) return nullptr;
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  if (snap != snapshot_ || !body_ || now - rendered_at_ >= max_age_) {
    body_ = std::make_shared<const std::string>(render_(*snap, std::chrono::system_clock::now()));
    snapshot_ = std::move(snap);
    rendered_at_ = now;
    ++renders_;
  }
  return body_;
}

size_t MetricsPage::renders() const {
  std::lock_guard lock(mu_);
  return renders_;
}

http::Response route(const http::Request& request, MetricsPage& metrics) {
  bool metrics_path = request.path == "/metrics";
  if (!metrics_path && request.path != "/healthz")
    return http::text_response(404, "not found; metrics are at /metrics");
  if (request.method != "GET" && request.method != "HEAD") {
    auto r = http::text_response(405, "only GET and HEAD are allowed");
    r.fields.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  if (!metrics_path) return http::text_response(200, "ok");
  auto body = metrics.body();
  if (!body) return http::text_response(503, "no sample yet");
  http::Response r;
  r.content_type = std::string(kPrometheusContentType);
  r.body = std::move(body);
  return r;
}

}  // namespace anygpu::exporter
