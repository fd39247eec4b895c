// Slurm hostlist expressions, as `scontrol show hostnames` expands them:
//   "gpu[01-04,07]"     -> gpu01 gpu02 gpu03 gpu04 gpu07   (padding of the lower bound kept)
//   "a[1-2]-b[3-4]"     -> a1-b3 a1-b4 a2-b3 a2-b4         (brackets multiply, leftmost slowest)
//   "n1,n[3-5] m"       -> n1 n3 n4 n5 m                   (commas and blanks separate hosts)
// Order and duplicates are kept, as Slurm keeps them (the first host is the master).
#include "cluster/hostlist.h"

#include <algorithm>
#include <cstdint>

#include "util/strings.h"

namespace anygpu {

namespace {

// Slurm's own hostlist.c caps a range at MAX_RANGE (64 Ki hosts); the whole expansion gets
// the same cap so "n[0-999999999]" is an error, not gigabytes of names.
constexpr size_t kMaxHosts = size_t{64} << 10;
// Longest number inside brackets: enough for any real node numbering, no overflow.
constexpr size_t kMaxDigits = 9;
// A node name is a host name (RFC 1035: at most 255 octets); longer is not a node.
constexpr size_t kMaxName = 255;

struct Range {
  uint64_t lo = 0, hi = 0;
  size_t width = 0;  // digits of the lower bound: "01" pads to two
};

// One bracket set or one literal run of a host pattern.
struct Part {
  std::string literal;        // used when ranges is empty
  std::vector<Range> ranges;  // "[…]"
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<std::vector<std::string>> run() {
    std::vector<std::string> hosts;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (is_separator(c)) {
        ++pos_;
        continue;
      }
      size_t start = pos_;
      auto parts = host_pattern();
      if (!parts) return parts.error();
      if (auto e = expand(*parts, start, hosts); !e.ok()) return e.error();
    }
    return hosts;
  }

 private:
  static bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  Error fail(size_t column, std::string_view what) const {
    // Quote the expression (shortened when huge) so the user sees what was parsed.
    std::string shown(text_.substr(0, 200));
    if (text_.size() > 200) shown += "…";
    return bad_input(
        cat({"hostlist \"", shown, "\" column ", std::to_string(column + 1), ": ", what}));
  }

  // A host pattern runs to the next separator outside brackets.
  Result<std::vector<Part>> host_pattern() {
    std::vector<Part> parts;
    while (pos_ < text_.size() && !is_separator(text_[pos_])) {
      char c = text_[pos_];
      if (c == '[') {
        // Slurm refuses "[1-2]x" too: a node name starts with a literal prefix.
        if (parts.empty()) return fail(pos_, "a host name cannot start with '['");
        auto ranges = bracket();
        if (!ranges) return ranges.error();
        parts.push_back({{}, std::move(*ranges)});
        continue;
      }
      if (c == ']') return fail(pos_, "']' without '['");
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return fail(pos_, "control character in a host name");
      if (parts.empty() || !parts.back().ranges.empty()) parts.push_back({});
      parts.back().literal += c;
      ++pos_;
    }
    return parts;
  }

  // "[01-04,07]": at least one range, digits only.
  Result<std::vector<Range>> bracket() {
    size_t open = pos_++;
    std::vector<Range> ranges;
    for (;;) {
      auto lo = number();
      if (!lo) return lo.error();
      Range r{lo->first, lo->first, lo->second};
      if (pos_ < text_.size() && text_[pos_] == '-') {
        ++pos_;
        auto hi = number();
        if (!hi) return hi.error();
        r.hi = hi->first;
        if (r.hi < r.lo) return fail(pos_ - hi->second, "range goes backwards");
      }
      ranges.push_back(r);
      if (pos_ >= text_.size()) return fail(open, "'[' is never closed");
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == ']') {
        ++pos_;
        return ranges;
      }
      if (c == '[') return fail(pos_, "brackets cannot nest");
      return fail(pos_, cat({"unexpected '", std::string_view(&text_[pos_], 1),
                             "' inside brackets (digits, '-' and ',' only)"}));
    }
  }

  // Digits at pos_: value and digit count.
  Result<std::pair<uint64_t, size_t>> number() {
    size_t start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && is_digit(text_[pos_])) {
      if (pos_ - start == kMaxDigits)
        return fail(start, "number longer than " + std::to_string(kMaxDigits) + " digits");
      v = v * 10 + static_cast<uint64_t>(text_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == start) {
      if (pos_ >= text_.size()) return fail(pos_, "expression ends inside brackets");
      return fail(pos_, "expected a number");
    }
    return std::pair{v, pos_ - start};
  }

  Result<bool> expand(const std::vector<Part>& parts, size_t start,
                      std::vector<std::string>& hosts) const {
    // Count first, so a huge product is refused before anything is built. Every partial sum
    // and product stays <= kMaxHosts^2, far from overflow.
    auto too_many = [&] {
      return fail(start, "expands to more than " + std::to_string(kMaxHosts) + " hosts");
    };
    uint64_t count = 1;
    size_t longest = 0;
    for (const auto& p : parts) {
      if (p.ranges.empty()) {
        longest += p.literal.size();
        continue;
      }
      size_t widest = 0;
      for (const auto& r : p.ranges)
        widest = std::max({widest, r.width, std::to_string(r.hi).size()});
      longest += widest;
      uint64_t n = 0;
      for (const auto& r : p.ranges) {
        n += r.hi - r.lo + 1;
        if (n > kMaxHosts) return too_many();
      }
      count *= n;
      if (count > kMaxHosts) return too_many();
    }
    if (hosts.size() + count > kMaxHosts) return too_many();
    if (longest > kMaxName)
      return fail(start, "host name longer than " + std::to_string(kMaxName) + " characters");
    std::string name;
    append(parts, 0, name, hosts);
    return true;
  }

  static void append(const std::vector<Part>& parts, size_t i, std::string& name,
                     std::vector<std::string>& hosts) {
    if (i == parts.size()) {
      hosts.push_back(name);
      return;
    }
    const auto& p = parts[i];
    size_t keep = name.size();
    if (p.ranges.empty()) {
      name += p.literal;
      append(parts, i + 1, name, hosts);
    } else {
      for (const auto& r : p.ranges)
        for (uint64_t v = r.lo; v <= r.hi; ++v) {
          auto digits = std::to_string(v);
          if (digits.size() < r.width) name.append(r.width - digits.size(), '0');
          name += digits;
          append(parts, i + 1, name, hosts);
          name.resize(keep);
        }
    }
    name.resize(keep);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expression) {
  return Parser(expression).run();
}

}  // namespace anygpu
