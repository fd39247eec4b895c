#include "launch/hang_beats.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "util/strings.h"

namespace anygpu {

namespace {

constexpr std::string_view kBeatMagic = "anygpu-beat/1";
constexpr std::string_view kBeatEvents[] = {"enter", "leave", "step", "backward", "mark", "exit"};
constexpr size_t kMaxBeatBytes = 4096;
constexpr size_t kMaxBeatWord = 128;

struct BeatToken {
  std::string_view text;
  size_t column;  // 1-based
};

Error beat_error(const std::string& path, size_t column, std::string_view what) {
  return bad_input(cat({escape_control(path), ":1:", std::to_string(column), ": ", what}));
}

// Space-separated words of the line (the padding after the last one and one final newline are
// allowed); anything else that is not printable is refused.
Result<std::vector<BeatToken>> beat_tokens(std::string_view text, const std::string& path) {
  if (text.size() > kMaxBeatBytes) return beat_error(path, 1, "beat line too long");
  if (text.ends_with('\n')) text.remove_suffix(1);
  std::vector<BeatToken> out;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == ' ') {
      ++i;
      continue;
    }
    size_t start = i;
    for (; i < text.size() && text[i] != ' '; ++i) {
      c = static_cast<unsigned char>(text[i]);
      if (c < 0x21 || c > 0x7e) return beat_error(path, i + 1, "unexpected byte in a beat line");
    }
    out.push_back({text.substr(start, i - start), start + 1});
  }
  return out;
}

struct BeatFields {
  std::map<std::string_view, BeatToken> values;
};

Result<BeatFields> beat_fields(const std::vector<BeatToken>& tokens, const std::string& path) {
  if (tokens.empty() || tokens.front().text != kBeatMagic)
    return beat_error(path, tokens.empty() ? 1 : tokens.front().column,
                      cat({"expected \"", kBeatMagic, "\" (not a beat file of this version)"}));
  BeatFields f;
  for (size_t k = 1; k < tokens.size(); ++k) {
    const auto& t = tokens[k];
    auto eq = t.text.find('=');
    if (eq == 0 || eq == std::string_view::npos)
      return beat_error(path, t.column, "expected KEY=VALUE");
    BeatToken value{t.text.substr(eq + 1), t.column + eq + 1};
    if (!f.values.emplace(t.text.substr(0, eq), value).second)
      return beat_error(path, t.column, cat({"\"", t.text.substr(0, eq), "\" given twice"}));
  }
  return f;
}

class BeatReader {
 public:
  BeatReader(const BeatFields& f, const std::string& path, size_t end_column)
      : f_(f), path_(path), end_(end_column) {}

  Result<uint64_t> number(std::string_view key, uint64_t max) const {
    auto t = find(key);
    if (!t) return t.error();
    auto v = parse_uint(t->text);
    if (!v || *v > max || t->text.starts_with('+') || t->text.starts_with(' '))
      return beat_error(path_, t->column,
                        cat({key, ": expected a whole number up to ", std::to_string(max)}));
    return *v;
  }

  Result<std::string> word(std::string_view key) const {
    auto t = find(key);
    if (!t) return t.error();
    if (t->text.empty() || t->text.size() > kMaxBeatWord)
      return beat_error(path_, t->column, cat({key, ": expected 1 to 128 printable characters"}));
    return std::string(t->text);
  }

 private:
  Result<BeatToken> find(std::string_view key) const {
    auto it = f_.values.find(key);
    if (it == f_.values.end()) return beat_error(path_, end_, cat({"missing \"", key, "=\""}));
    return it->second;
  }

  const BeatFields& f_;
  const std::string& path_;
  size_t end_;
};

constexpr uint64_t kIntMax = 2147483647;

Result<bool> fill_numbers(Beat& b, const BeatReader& r) {
  auto rank = r.number("rank", kIntMax);
  if (!rank) return rank.error();
  auto local = r.number("local_rank", kIntMax);
  if (!local) return local.error();
  auto pid = r.number("pid", 4194304);
  if (!pid) return pid.error();
  auto sig = r.number("signal", 64);
  if (!sig) return sig.error();
  auto threshold = r.number("threshold_s", 31536000);
  if (!threshold) return threshold.error();
  auto count = r.number("count", UINT64_MAX);
  if (!count) return count.error();
  auto seq = r.number("seq", UINT64_MAX);
  if (!seq) return seq.error();
  auto time = r.number("time_ns", INT64_MAX);
  if (!time) return time.error();
  b.rank = static_cast<int>(*rank);
  b.local_rank = static_cast<int>(*local);
  b.pid = static_cast<pid_t>(*pid);
  b.signal = static_cast<int>(*sig);
  b.threshold_s = *threshold;
  b.count = *count;
  b.seq = *seq;
  b.time_ns = static_cast<int64_t>(*time);
  return true;
}

Result<bool> fill_words(Beat& b, const BeatReader& r, const BeatFields& f,
                        const std::string& path) {
  auto device = r.word("device");
  if (!device) return device.error();
  auto event = r.word("event");
  if (!event) return event.error();
  if (std::find(std::begin(kBeatEvents), std::end(kBeatEvents), *event) == std::end(kBeatEvents))
    return beat_error(path, f.values.at("event").column,
                      "event: expected enter, leave, step, backward, mark or exit");
  auto op = r.word("op");
  if (!op) return op.error();
  auto collective = r.word("collective");
  if (!collective) return collective.error();
  b.device = *device;
  b.event = *event;
  b.op = *op;
  b.collective = *collective;
  return true;
}

}  // namespace

Result<Beat> parse_beat(std::string_view text, const std::string& path) {
  auto tokens = beat_tokens(text, path);
  if (!tokens) return tokens.error();
  auto fields = beat_fields(*tokens, path);
  if (!fields) return fields.error();
  size_t end = tokens->back().column + tokens->back().text.size();
  BeatReader reader(*fields, path, end);
  Beat b;
  if (auto numbers = fill_numbers(b, reader); !numbers) return numbers.error();
  if (auto words = fill_words(b, reader, *fields, path); !words) return words.error();
  for (const auto& [key, token] : fields->values) {
    static constexpr std::string_view kKnown[] = {"rank",    "local_rank",  "pid",   "device",
                                                  "signal",  "threshold_s", "count", "seq",
                                                  "time_ns", "event",       "op",    "collective"};
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown))
      return beat_error(path, token.column - key.size() - 1, cat({"unknown key \"", key, "\""}));
  }
  return b;
}

namespace {

std::optional<std::string> slurp_small(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(kMaxBeatBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// A beat is rewritten with one pwrite; a read racing it may see a mix, so a malformed read is
// taken again after a moment, and only a second failure counts.
Result<Beat> read_beat_file(const std::string& path) {
  Result<Beat> beat = bad_input(cat({escape_control(path), ": cannot be read"}));
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto text = slurp_small(path);
    if (!text) return bad_input(cat({escape_control(path), ": cannot be read"}));
    beat = parse_beat(*text, path);
    if (beat) return beat;
    ::usleep(20000);
  }
  return beat;
}

bool beat_file_name(std::string_view name) {
  if (!name.starts_with("rank-") || !name.ends_with(".beat")) return false;
  std::string_view digits = name.substr(5, name.size() - 10);
  return !digits.empty() &&
         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string nonempty_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? path
                                                                                 : std::string();
}

}  // namespace

Result<std::vector<RankBeat>> read_beats(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return bad_input(cat({escape_control(dir), ": not a readable directory"}));
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (beat_file_name(e->d_name)) names.emplace_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  std::vector<RankBeat> out;
  for (const auto& name : names) {
    std::string path = cat({dir, "/", name});
    auto beat = read_beat_file(path);
    if (!beat) return beat.error();
    if (cat({"rank-", std::to_string(beat->rank), ".beat"}) != name)
      return bad_input(
          cat({escape_control(path), ": holds the beat of rank ", std::to_string(beat->rank)}));
    std::string stacks =
        nonempty_file(cat({dir, "/stacks-rank-", std::to_string(beat->rank), ".txt"}));
    out.push_back({std::move(*beat), path, stacks});
  }
  std::sort(out.begin(), out.end(),
            [](const RankBeat& a, const RankBeat& b) { return a.beat.rank < b.beat.rank; });
  return out;
}

namespace {

// Which stalled rank stopped first (see judge_hang), and why it was chosen.
std::pair<size_t, std::string> first_stalled(const std::vector<RankBeat>& ranks,
                                             const std::vector<size_t>& stalled) {
  std::vector<size_t> outside;
  for (size_t i : stalled)
    if (ranks[i].beat.event != "enter") outside.push_back(i);
  auto oldest = [&](const std::vector<size_t>& among) {
    return *std::min_element(among.begin(), among.end(), [&](size_t a, size_t b) {
      return ranks[a].beat.time_ns < ranks[b].beat.time_ns;
    });
  };
  if (!outside.empty())
    return {oldest(outside), "stalled outside any collective while the others wait inside one"};
  uint64_t fewest = UINT64_MAX, most = 0;
  for (size_t i : stalled) {
    fewest = std::min(fewest, ranks[i].beat.seq);
    most = std::max(most, ranks[i].beat.seq);
  }
  if (fewest < most) {
    std::vector<size_t> behind;
    for (size_t i : stalled)
      if (ranks[i].beat.seq == fewest) behind.push_back(i);
    return {oldest(behind),
            "entered fewer collectives than the others (they went on to a later one)"};
  }
  return {oldest(stalled), "its last beat is the oldest"};
}

}  // namespace

HangVerdict judge_hang(const std::vector<RankBeat>& ranks, int64_t now_ns, uint64_t threshold_s) {
  HangVerdict v;
  v.threshold_s = threshold_s;
  if (v.threshold_s == 0)
    for (const auto& r : ranks) v.threshold_s = std::max(v.threshold_s, r.beat.threshold_s);
  std::vector<size_t> stalled;
  for (size_t i = 0; i < ranks.size(); ++i) {
    RankVerdict r;
    r.age_s = static_cast<double>(now_ns - ranks[i].beat.time_ns) / 1e9;
    r.stalled = ranks[i].beat.event != "exit" && v.threshold_s > 0 &&
                r.age_s >= static_cast<double>(v.threshold_s);
    if (r.stalled) stalled.push_back(i);
    v.ranks.push_back(r);
  }
  if (stalled.empty()) return v;
  v.hang = true;
  auto [first, why] = first_stalled(ranks, stalled);
  v.first = first;
  v.why = std::move(why);
  return v;
}

}  // namespace anygpu
