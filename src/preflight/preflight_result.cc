#include "preflight/preflight_result.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "util/exit_codes.h"
#include "util/json_parse.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

using json = nlohmann::ordered_json;

constexpr size_t kMaxResultBytes = 64 * 1024;
constexpr std::string_view kRankSchema = "anygpu.preflight-rank/v1";
constexpr std::string_view kStatuses[] = {"pass", "fail", "measured", "skipped"};

// Field checks of one result document; the first fault names FILE and the field.
class ResultReader {
 public:
  explicit ResultReader(const std::string& file) : file_(file) {}

  Error fault(std::string_view field, std::string_view what) const {
    return bad_input(cat({escape_control(file_), ": ", field, ": ", what}));
  }

  Result<int> integer(const json& doc, std::string_view key, int lo, int hi) const {
    auto it = doc.find(key);
    if (it == doc.end() || !it->is_number_integer()) return fault(key, "expected a whole number");
    auto v = it->get<int64_t>();
    if (v < lo || v > hi)
      return fault(key, cat({"expected ", std::to_string(lo), " to ", std::to_string(hi)}));
    return static_cast<int>(v);
  }

  Result<std::string> text(const json& doc, std::string_view key, std::string_view field,
                           bool required) const {
    auto it = doc.find(key);
    if (it == doc.end()) {
      if (required) return fault(field, "missing");
      return std::string();
    }
    if (!it->is_string() || it->get_ref<const std::string&>().size() > 512)
      return fault(field, "expected text of at most 512 bytes");
    return it->get<std::string>();
  }

  Result<PreflightTest> test(const json& t, size_t i) const {
    std::string at = cat({"tests[", std::to_string(i), "]"});
    if (!t.is_object()) return fault(at, "expected an object");
    PreflightTest out;
    auto name = text(t, "name", at + ".name", true);
    if (!name) return name.error();
    if (name->empty()) return fault(at + ".name", "empty");
    out.name = *name;
    auto status = text(t, "status", at + ".status", true);
    if (!status) return status.error();
    if (std::find(std::begin(kStatuses), std::end(kStatuses), *status) == std::end(kStatuses))
      return fault(at + ".status", cat({"\"", escape_control(*status),
                                        "\": expected pass, fail, measured or skipped"}));
    out.status = *status;
    if (auto v = t.find("value"); v != t.end()) {
      if (!v->is_number() || !std::isfinite(v->get<double>()))
        return fault(at + ".value", "expected a finite number");
      out.value = v->get<double>();
    }
    auto unit = text(t, "unit", at + ".unit", false);
    if (!unit) return unit.error();
    if (!unit->empty()) out.unit = *unit;
    auto detail = text(t, "detail", at + ".detail", false);
    if (!detail) return detail.error();
    if (!detail->empty()) out.detail = *detail;
    if (out.status == "measured" && !out.value) return fault(at, "a measured test without a value");
    return out;
  }

 private:
  const std::string& file_;
};

// Counts as whole numbers; rates to about four significant digits.
std::string figure(double v) {
  char buf[32];
  const char* format = v == std::floor(v) && std::fabs(v) < 1e9 ? "%.0f"
                       : v >= 100                               ? "%.1f"
                       : v >= 1                                 ? "%.2f"
                                                                : "%.4f";
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Judges a rate against the registry: pass at kPreflightFloor of `peak` or more.
void judge_rate(PreflightTest& t, std::optional<double> peak, std::string_view what,
                std::string_view source) {
  if (!peak || t.status != "measured" || !t.value) return;
  t.expected_min = *peak * kPreflightFloor;
  if (*t.value >= *t.expected_min) {
    t.status = "pass";
    return;
  }
  t.status = "fail";
  std::string why = cat({"below ", figure(*t.expected_min), " (",
                         std::to_string(static_cast<int>(kPreflightFloor * 100)),
                         " % of the datasheet's ", figure(*peak), " ", what, ", ", source, ")"});
  t.detail = t.detail ? cat({*t.detail, "; ", why}) : why;
}

}  // namespace

std::string_view to_string(PreflightVerdict v) {
  switch (v) {
    case PreflightVerdict::ok:
      return "ok";
    case PreflightVerdict::fail:
      return "fail";
    case PreflightVerdict::skipped:
      return "skipped";
  }
  return "fail";
}

Result<RankResult> parse_rank_result(std::string_view text, const std::string& file) {
  auto doc = parse_json_text(text, file);
  if (!doc) return doc.error();
  ResultReader r(file);
  if (!doc->is_object()) return r.fault("document", "expected an object");
  auto schema = r.text(*doc, "schema", "schema", true);
  if (!schema) return schema.error();
  if (*schema != kRankSchema)
    return r.fault("schema", cat({"\"", escape_control(*schema), "\": expected ", kRankSchema}));
  RankResult out;
  auto world = r.integer(*doc, "world_size", 1, 65536);
  if (!world) return world.error();
  out.world_size = *world;
  auto rank = r.integer(*doc, "rank", 0, out.world_size - 1);
  if (!rank) return rank.error();
  out.rank = *rank;
  auto local = r.integer(*doc, "local_rank", 0, out.world_size - 1);
  if (!local) return local.error();
  out.local_rank = *local;
  auto device = r.text(*doc, "device", "device", true);
  if (!device) return device.error();
  out.device = *device;
  auto torch = r.text(*doc, "torch", "torch", false);
  if (!torch) return torch.error();
  out.torch = *torch;
  auto tests = doc->find("tests");
  if (tests == doc->end() || !tests->is_array() || tests->empty() || tests->size() > 32)
    return r.fault("tests", "expected a list of 1 to 32 tests");
  for (size_t i = 0; i < tests->size(); ++i) {
    auto t = r.test((*tests)[i], i);
    if (!t) return t.error();
    for (const auto& seen : out.tests)
      if (seen.name == t->name)
        return r.fault(cat({"tests[", std::to_string(i), "].name"}),
                       cat({"\"", escape_control(t->name), "\" given twice"}));
    out.tests.push_back(std::move(*t));
  }
  return out;
}

Result<std::vector<std::optional<RankResult>>> read_rank_results(const std::string& dir,
                                                                 int world) {
  std::vector<std::optional<RankResult>> out(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    std::string path = cat({dir, "/rank-", std::to_string(r), ".json"});
    auto text = read_regular_file(path, kMaxResultBytes + 1, "preflight result");
    if (!text) {
      if (text.error().sys_errno == ENOENT) continue;
      return text.error();
    }
    if (text->size() > kMaxResultBytes)
      return bad_input(cat({escape_control(path), ": larger than ",
                            std::to_string(kMaxResultBytes / 1024), " KiB"}));
    auto result = parse_rank_result(*text, path);
    if (!result) return result.error();
    if (result->rank != r)
      return bad_input(
          cat({escape_control(path), ": holds the result of rank ", std::to_string(result->rank)}));
    out[static_cast<size_t>(r)] = std::move(*result);
  }
  return out;
}

UnitVerdict judge_unit(const PreflightUnit& unit, const std::optional<RankResult>& result,
                       const std::string& missing_why) {
  UnitVerdict v;
  v.unit = unit;
  if (unit.skip) {
    v.verdict = PreflightVerdict::skipped;
    v.reason = *unit.skip;
    return v;
  }
  if (!result) {
    v.verdict = PreflightVerdict::fail;
    v.reason = cat({"its process wrote no result (", missing_why, ")"});
    return v;
  }
  v.tests = result->tests;
  // Datasheet rates are a whole device's on its vendor's runtime: not a partition's, and not
  // what the CPU fallback of a torch that cannot use the device measures.
  const bool judged = unit.spec && !unit.partition && !unit.cpu && result->device != "cpu";
  for (auto& t : v.tests) {
    if (!judged) continue;
    if (t.name == "matmul")
      judge_rate(t, unit.spec->matmul_tflops, "TFLOPS", unit.spec->matmul_source);
    else if (t.name == "memory_bandwidth")
      judge_rate(t, unit.spec->memory_bandwidth_gbps, "GB/s", unit.spec->source);
  }
  std::vector<std::string> failed;
  size_t skipped = 0;
  for (const auto& t : v.tests) {
    if (t.status == "fail") failed.push_back(t.name);
    if (t.status == "skipped") ++skipped;
  }
  if (!failed.empty()) {
    v.verdict = PreflightVerdict::fail;
    v.reason = cat({"failed: ", join(failed, ", ")});
  } else if (skipped == v.tests.size()) {
    v.verdict = PreflightVerdict::skipped;
    v.reason = v.tests.front().detail.value_or("every test was skipped");
  } else {
    v.verdict = PreflightVerdict::ok;
  }
  return v;
}

json preflight_json(const std::vector<UnitVerdict>& verdicts) {
  json devices = json::array();
  for (const auto& v : verdicts) {
    json d;
    d["pci_bus_id"] = v.unit.pci_bus_id ? json(*v.unit.pci_bus_id) : json(nullptr);
    d["id"] = v.unit.id;
    if (v.unit.name) d["name"] = *v.unit.name;
    d["verdict"] = to_string(v.verdict);
    if (!v.reason.empty()) d["reason"] = v.reason;
    json tests = json::array();
    for (const auto& t : v.tests) {
      json j;
      j["name"] = t.name;
      if (t.value) j["value"] = *t.value;
      if (t.unit) j["unit"] = *t.unit;
      if (t.expected_min) j["expected"] = {{"min", *t.expected_min}};
      j["status"] = t.status;
      if (t.detail) j["detail"] = *t.detail;
      tests.push_back(std::move(j));
    }
    d["tests"] = std::move(tests);
    devices.push_back(std::move(d));
  }
  return json{{"schema", "anygpu.preflight/v1"}, {"devices", std::move(devices)}};
}

std::string preflight_text(const std::vector<UnitVerdict>& verdicts) {
  std::string out;
  for (const auto& v : verdicts) {
    out += cat({v.unit.id, "  ", v.unit.name ? escape_control(*v.unit.name) : "", "  ",
                to_string(v.verdict)});
    if (!v.reason.empty()) out += cat({": ", escape_control(v.reason)});
    out += "\n";
    // A skipped device's tests all say why it was skipped: said once, above.
    if (v.verdict == PreflightVerdict::skipped) continue;
    for (const auto& t : v.tests) {
      std::string value = t.value ? cat({figure(*t.value), t.unit ? " " : "", t.unit.value_or("")})
                                  : std::string("-");
      char line[160];
      std::snprintf(line, sizeof line, "  %-17s %-16s %-8s", t.name.c_str(), value.c_str(),
                    t.status.c_str());
      out += line;
      if (t.expected_min) out += cat({" (expected >= ", figure(*t.expected_min), ")"});
      if (t.detail) out += cat({"  ", escape_control(*t.detail)});
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n";
    }
  }
  return out;
}

int preflight_exit_code(const std::vector<UnitVerdict>& verdicts) {
  bool tested = false;
  for (const auto& v : verdicts) {
    if (v.verdict == PreflightVerdict::fail) return kExitCheckFailed;
    if (v.verdict == PreflightVerdict::ok) tested = true;
  }
  return tested ? kExitOk : kExitHostLacks;
}

}  // namespace anygpu
