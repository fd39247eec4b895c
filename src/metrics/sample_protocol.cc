#include "metrics/sample_protocol.h"

#include <charconv>
#include <cmath>

#include "metrics/schema.h"
#include "util/strings.h"
#include "worker/message.h"

namespace anygpu::worker {

namespace {

std::string number(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "0";
}

// A finite decimal number, nothing else ("nan", "inf", "0x1p3", " 1" are errors).
std::optional<double> parse_number(const std::string& s) {
  if (s.empty() || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A value the worker may send: finite and within its metric's range (metrics/schema.h).
bool in_range(const DeviceMetric& m, double v) {
  return std::isfinite(v) && v >= m.min && v <= m.max;
}

// One value line into `s`; what is wrong with it otherwise.
std::optional<std::string> decode_value(const Record& r, DeviceSample& s) {
  const DeviceMetric* m = find_metric_by_wire(r.tag);
  if (!m) return cat({"unknown tag '", r.tag, "'"});
  if (r.fields.size() != (m->labelled ? 2u : 1u)) return cat({"bad '", r.tag, "'"});
  auto v = parse_number(r.fields.back());
  if (!v) return "not a finite number";
  if (!in_range(*m, *v)) return cat({"'", r.tag, "' out of range"});
  if (m->labelled) {
    if (!(s.*(m->labelled)).emplace(r.fields[0], *v).second) return "repeated label";
  } else {
    if (s.*(m->scalar)) return cat({"repeated '", r.tag, "'"});
    s.*(m->scalar) = *v;
  }
  return std::nullopt;
}

// Instance ids bounded as the discovery worker's `mig` records are (probe/libs/probe_protocol.cc),
// and a count per device far above any partitioning's, so a confused worker cannot make anygpu
// hold without bound.
constexpr uint64_t kMaxInstanceId = 64;
constexpr size_t kMaxPartitionsPerDevice = 64;

PartitionSample* find_partition(DeviceSample& s, unsigned gi, unsigned ci) {
  for (auto& p : s.partitions)
    if (p.gpu_instance == gi && p.compute_instance == ci) return &p;
  return nullptr;
}

// One `partition GI CI [TAG N]` line into `s`; what is wrong with it otherwise.
std::optional<std::string> decode_partition(const Record& r, DeviceSample& s) {
  if (r.fields.size() != 2 && r.fields.size() != 4) return "'partition' takes 2 or 4 fields";
  auto gi = parse_uint(r.fields[0]), ci = parse_uint(r.fields[1]);
  if (!gi || !ci || *gi > kMaxInstanceId || *ci > kMaxInstanceId) return "bad instance ids";
  auto* p = find_partition(s, static_cast<unsigned>(*gi), static_cast<unsigned>(*ci));
  if (r.fields.size() == 2) {
    if (p) return "repeated partition";
    if (s.partitions.size() >= kMaxPartitionsPerDevice) return "too many partitions";
    PartitionSample added;
    added.gpu_instance = static_cast<unsigned>(*gi);
    added.compute_instance = static_cast<unsigned>(*ci);
    s.partitions.push_back(std::move(added));
    return std::nullopt;
  }
  if (!p) return "a value for a partition not declared before it";
  const DeviceMetric* m = find_metric_by_wire(r.fields[2]);
  if (!m || !m->partition) return cat({"'", r.fields[2], "' is not a per-partition metric"});
  auto v = parse_number(r.fields[3]);
  if (!v) return "not a finite number";
  if (!in_range(*m, *v)) return cat({"'", r.fields[2], "' out of range"});
  if (p->*(m->partition)) return cat({"repeated '", r.fields[2], "'"});
  p->*(m->partition) = *v;
  return std::nullopt;
}

void encode_partitions(Writer& w, const DeviceSample& s) {
  for (const auto& p : s.partitions) {
    auto gi = std::to_string(p.gpu_instance), ci = std::to_string(p.compute_instance);
    w.line("partition", {gi, ci});
    for (const auto& m : device_metrics())
      if (m.partition)
        if (const auto& x = p.*(m.partition); x && in_range(m, *x))
          w.line("partition", {gi, ci, m.wire, number(*x)});
  }
}

}  // namespace

bool readiness_complete(std::string_view b) {
  auto first = b.find('\n');
  return first != std::string_view::npos && b.find('\n', first + 1) != std::string_view::npos;
}

std::string encode_sampler_setup(const SamplerSetup& s) {
  Writer w;
  w.header().line("sampler", {s.api}).line("root", {s.root});
  w.line("timeout", {std::to_string(s.timeout.count())});
  for (const auto& n : s.sonames) w.line("soname", {n});
  for (const auto& d : s.dirs) w.line("dir", {d});
  for (const auto& t : s.targets)
    w.line("device", {t.address.str(), t.suspended ? "suspended" : "awake"});
  return w.line("end").take();
}

Result<SamplerSetup> decode_sampler_setup(std::string_view text) {
  auto parsed = parse_records(text);
  if (auto e = header_error(parsed)) return bad_input(*e);
  if (parsed.error) return bad_input(*parsed.error);
  SamplerSetup s;
  bool ended = false, have_api = false;
  for (size_t i = 1; i < parsed.records.size(); ++i) {
    const auto& r = parsed.records[i];
    bool one = r.fields.size() == 1;
    if (ended) return bad_input(at(r, "data after 'end'"));
    if (r.tag == "sampler" && one && !have_api) {
      s.api = r.fields[0];
      have_api = true;
    } else if (r.tag == "root" && one) {
      s.root = r.fields[0];
    } else if (r.tag == "timeout" && one) {
      auto ms = parse_uint(r.fields[0]);
      if (!ms || *ms == 0 || *ms > 3600000) return bad_input(at(r, "bad timeout"));
      s.timeout = std::chrono::milliseconds(*ms);
    } else if (r.tag == "soname" && one) {
      s.sonames.push_back(r.fields[0]);
    } else if (r.tag == "dir" && one) {
      s.dirs.push_back(r.fields[0]);
    } else if (r.tag == "device" && r.fields.size() == 2) {
      auto a = PciAddress::parse(r.fields[0]);
      if (!a || (r.fields[1] != "awake" && r.fields[1] != "suspended"))
        return bad_input(at(r, "bad device"));
      s.targets.push_back({*a, r.fields[1] == "suspended"});
    } else if (r.tag == "end" && r.fields.empty()) {
      ended = true;
    } else {
      return bad_input(at(r, cat({"unexpected '", r.tag, "'"})));
    }
  }
  if (!ended || !have_api || s.sonames.empty())
    return bad_input("sampler setup incomplete (sampler, soname and end are required)");
  return s;
}

std::string encode_ready() {
  return Writer().header().line("ready").take();
}

std::string encode_failed(std::string_view message) {
  return Writer().header().line("failed", {message.empty() ? "failed" : message}).take();
}

Readiness decode_readiness(std::string_view text) {
  Readiness out;
  auto parsed = parse_records(text);
  if (auto e = header_error(parsed)) {
    out.error = *e;
    return out;
  }
  if (parsed.error || parsed.unfinished || parsed.records.size() != 2) {
    out.error = parsed.error ? *parsed.error : "expected one line after the header";
    return out;
  }
  const auto& r = parsed.records[1];
  if (r.tag == "ready" && r.fields.empty()) {
    out.ready = true;
  } else if (r.tag == "failed" && r.fields.size() == 1) {
    out.failed = r.fields[0];
  } else {
    out.error = at(r, "expected 'ready' or 'failed'");
  }
  return out;
}

std::string encode_samples(const std::vector<SampleTarget>& targets,
                           const std::vector<DeviceSample>& samples, const StrayOutput& output) {
  Writer w;
  w.line("sample");
  for (size_t i = 0; i < targets.size(); ++i) {
    w.line("device", {targets[i].address.str()});
    if (i >= samples.size()) continue;
    const auto& s = samples[i];
    for (const auto& m : device_metrics()) {
      if (m.scalar) {
        if (const auto& x = s.*(m.scalar); x && in_range(m, *x)) w.line(m.wire, {number(*x)});
        continue;
      }
      for (const auto& [label, x] : s.*(m.labelled))
        if (in_range(m, x)) w.line(m.wire, {label, number(x)});
    }
    encode_partitions(w, s);
    for (const auto& warning : s.warnings)
      if (!warning.empty()) w.line("warning", {warning});
  }
  if (output.bytes)
    w.line("output", {std::to_string(output.bytes), output.excerpt.empty() ? "-" : output.excerpt});
  return w.line("end").take();
}

SampleReply decode_samples(std::string_view block, const std::vector<SampleTarget>& targets) {
  SampleReply out;
  // A block has no header of its own: parse it as the continuation it is.
  auto parsed = parse_records(Writer().header().take() + std::string(block));
  auto fail = [&](std::string why) {
    out.error = std::move(why);
    out.samples.clear();
    out.output = {};
    return out;
  };
  if (parsed.error) return fail(*parsed.error);
  const auto& recs = parsed.records;
  if (recs.size() < 3 || recs[1].tag != "sample" || !recs[1].fields.empty() ||
      recs.back().tag != "end" || !recs.back().fields.empty() || parsed.unfinished)
    return fail("a sample must run from 'sample' to 'end'");
  for (size_t i = 2; i + 1 < recs.size(); ++i) {
    const auto& r = recs[i];
    if (r.tag == "device") {
      if (r.fields.size() != 1 || out.samples.size() >= targets.size() ||
          r.fields[0] != targets[out.samples.size()].address.str())
        return fail(at(r, "device out of order or not asked for"));
      DeviceSample s;
      s.pci_bus_id = r.fields[0];
      out.samples.push_back(std::move(s));
      continue;
    }
    if (r.tag == "output") {
      auto n = r.fields.size() == 2 ? parse_uint(r.fields[0]) : std::nullopt;
      if (!n || *n == 0 || out.output.bytes) return fail(at(r, "bad or repeated 'output'"));
      out.output = {*n, r.fields[1] == "-" ? "" : r.fields[1]};
      continue;
    }
    if (out.samples.empty()) return fail(at(r, cat({"'", r.tag, "' before any device"})));
    auto& s = out.samples.back();
    if (targets[out.samples.size() - 1].suspended)
      return fail(at(r, "a value for a suspended device"));
    if (r.tag == "warning" && r.fields.size() == 1) {
      s.warnings.push_back(r.fields[0]);
      continue;
    }
    // A bad partition line costs that line, not the sample: the parent's values stand.
    if (r.tag == "partition") {
      if (auto why = decode_partition(r, s))
        s.warnings.push_back(cat({"sample reply ", at(r, *why), "; partition line dropped"}));
      continue;
    }
    if (auto why = decode_value(r, s)) return fail(at(r, *why));
  }
  if (out.samples.size() != targets.size()) return fail("not every device answered");
  return out;
}

}  // namespace anygpu::worker
