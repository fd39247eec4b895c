#include "launch/hang_report.h"

#include <cstdio>

#include "util/strings.h"

namespace anygpu {

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

nlohmann::ordered_json rank_json(const RankBeat& r, const RankVerdict& v) {
  nlohmann::ordered_json j;
  j["rank"] = r.beat.rank;
  j["local_rank"] = r.beat.local_rank;
  j["pid"] = r.beat.pid;
  j["device"] = r.beat.device;
  j["beats"] = r.beat.count;
  j["collectives"] = r.beat.seq;
  j["event"] = r.beat.event;
  j["op"] = r.beat.op;
  j["last_collective"] = r.beat.collective == "-" ? nlohmann::ordered_json()
                                                  : nlohmann::ordered_json(r.beat.collective);
  j["age_s"] = static_cast<double>(static_cast<int64_t>(v.age_s * 10)) / 10;
  j["stalled"] = v.stalled;
  j["stacks"] = r.stacks.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.stacks);
  return j;
}

std::string first_line(const std::vector<RankBeat>& ranks, const HangVerdict& v) {
  if (!v.hang)
    return cat(
        {"no hang: every rank beat within ", std::to_string(v.threshold_s), " s or exited\n"});
  const auto& b = ranks[*v.first].beat;
  return cat({"hang: rank ", std::to_string(b.rank), " (device ", b.device, ", pid ",
              std::to_string(b.pid), ") stopped first: ", v.why, "\n"});
}

std::string rank_line(const RankBeat& r, const RankVerdict& v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-5d %-14s %-8d %-6llu %-11llu %-9s %-16s %-16s %s%s\n",
                r.beat.rank, r.beat.device.c_str(), static_cast<int>(r.beat.pid),
                static_cast<unsigned long long>(r.beat.count),
                static_cast<unsigned long long>(r.beat.seq), r.beat.event.c_str(),
                r.beat.op.c_str(), r.beat.collective.c_str(), seconds_text(v.age_s).c_str(),
                v.stalled ? "  stalled" : "");
  return buf;
}

}  // namespace

nlohmann::ordered_json hang_report_json(const std::string& dir, const std::vector<RankBeat>& ranks,
                                        const HangVerdict& verdict) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.hang-report/v1";
  j["dir"] = dir;
  j["hang"] = verdict.hang;
  j["threshold_s"] = verdict.threshold_s;
  j["first"] = nlohmann::ordered_json();
  if (verdict.first) {
    const auto& b = ranks[*verdict.first].beat;
    j["first"] = {{"rank", b.rank}, {"device", b.device}, {"pid", b.pid}};
  }
  j["why"] = verdict.why;
  j["ranks"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ranks.size(); ++i)
    j["ranks"].push_back(rank_json(ranks[i], verdict.ranks[i]));
  return j;
}

std::string hang_report_text(const std::string& dir, const std::vector<RankBeat>& ranks,
                             const HangVerdict& verdict) {
  std::string out = first_line(ranks, verdict);
  out += cat({"threshold: ", std::to_string(verdict.threshold_s), " s; beats in ", dir, "\n"});
  out +=
      "rank  device         pid      beats  collectives event     op               "
      "last collective  age\n";
  std::vector<std::string> stacks;
  for (size_t i = 0; i < ranks.size(); ++i) {
    out += rank_line(ranks[i], verdict.ranks[i]);
    if (!ranks[i].stacks.empty()) stacks.push_back(ranks[i].stacks);
  }
  out += stacks.empty() ? std::string("stacks: none dumped\n")
                        : cat({"stacks: ", join(stacks, ", "), "\n"});
  return out;
}

}  // namespace anygpu
