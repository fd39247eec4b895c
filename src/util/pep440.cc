#include "util/pep440.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <tuple>

#include "util/strings.h"

namespace anygpu::pep440 {

namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  bool done() const { return i_ >= s_.size(); }
  size_t pos() const { return i_; }
  void seek(size_t p) { i_ = p; }
  char peek() const { return done() ? '\0' : s_[i_]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  bool take_sep() { return take('-') || take('_') || take('.'); }
  bool take_word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  // Digits as a number; absent when there are none.
  std::optional<Number> number() {
    size_t start = i_;
    while (!done() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ == start) return std::nullopt;
    return Number::from_digits(s_.substr(start, i_ - start));
  }
  std::string_view rest() const { return s_.substr(std::min(i_, s_.size())); }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

std::optional<char> pre_label(Scanner& sc) {
  // Longest spellings first.
  static constexpr std::array<std::pair<std::string_view, char>, 8> kLabels{{{"alpha", 'a'},
                                                                             {"beta", 'b'},
                                                                             {"preview", 'c'},
                                                                             {"pre", 'c'},
                                                                             {"rc", 'c'},
                                                                             {"a", 'a'},
                                                                             {"b", 'b'},
                                                                             {"c", 'c'}}};
  for (auto [word, letter] : kLabels)
    if (sc.take_word(word)) return letter;
  return std::nullopt;
}

// The pre/post/dev comparison keys of PEP 440 (packaging's _cmpkey), as ordered tuples.
using Key = std::tuple<int, char, Number>;  // rank: 0 = -inf, 1 = value, 2 = +inf

Key pre_key(const Version& v) {
  if (!v.pre && !v.post && v.dev) return {0, 0, Number()};
  if (!v.pre) return {2, 0, Number()};
  return {1, v.pre->first, v.pre->second};
}
Key post_key(const Version& v) {
  return v.post ? Key{1, 0, *v.post} : Key{0, 0, Number()};
}
Key dev_key(const Version& v) {
  return v.dev ? Key{1, 0, *v.dev} : Key{2, 0, Number()};
}

int cmp_local(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return a.empty() == b.empty() ? 0 : (a.empty() ? -1 : 1);
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    bool da = std::all_of(a[i].begin(), a[i].end(), ::isdigit);
    bool db = std::all_of(b[i].begin(), b[i].end(), ::isdigit);
    if (da != db) return da ? 1 : -1;  // numeric segments sort after alphanumeric ones
    if (da) {
      auto na = Number::from_digits(a[i]), nb = Number::from_digits(b[i]);
      if (na != nb) return na < nb ? -1 : 1;
    } else if (a[i] != b[i]) {
      return a[i] < b[i] ? -1 : 1;
    }
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

template <class T>
int three_way(const T& a, const T& b) {
  if (a < b) return -1;
  if (b < a) return 1;
  return 0;
}

}  // namespace

Number Number::from_digits(std::string_view d) {
  while (d.size() > 1 && d.front() == '0') d.remove_prefix(1);
  Number n;
  n.digits = std::string(d);
  return n;
}

namespace {
// The byte length of the Unicode whitespace character (Python's str.isspace, which packaging's
// `\s` follows) that starts `s`, or 0: ASCII whitespace and \x1c-\x1f, U+0085, U+00A0,
// U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
size_t space_at(std::string_view s) {
  auto b = [&](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  unsigned c = b(0);
  if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)) return 1;
  if (c == 0xc2 && (b(1) == 0x85 || b(1) == 0xa0)) return 2;
  if (c == 0xe1 && b(1) == 0x9a && b(2) == 0x80) return 3;
  if (c == 0xe2 && b(1) == 0x80 && (b(2) <= 0x8a || b(2) == 0xa8 || b(2) == 0xa9 || b(2) == 0xaf))
    return 3;
  if (c == 0xe2 && b(1) == 0x81 && b(2) == 0x9f) return 3;
  if (c == 0xe3 && b(1) == 0x80 && b(2) == 0x80) return 3;
  return 0;
}

std::string_view strip_spaces(std::string_view s) {
  while (size_t n = space_at(s)) s.remove_prefix(n);
  for (bool more = true; more && !s.empty();) {
    more = false;
    for (size_t n = 1; n <= 3 && n <= s.size(); ++n)
      if (space_at(s.substr(s.size() - n)) == n) {
        s.remove_suffix(n);
        more = true;
        break;
      }
  }
  return s;
}
}  // namespace

std::optional<Version> Version::parse(std::string_view text) {
  auto lowered = to_lower(strip_spaces(text));
  Scanner sc(lowered);
  Version v;
  sc.take('v');
  // Epoch: digits followed by '!'.
  size_t start = sc.pos();
  if (auto n = sc.number(); n && sc.take('!')) {
    v.epoch = *n;
  } else {
    sc.seek(start);
  }
  auto first = sc.number();
  if (!first) return std::nullopt;
  v.release.push_back(*first);
  while (true) {
    size_t p = sc.pos();
    if (!sc.take('.')) break;
    auto n = sc.number();
    if (!n) {
      sc.seek(p);
      break;
    }
    v.release.push_back(*n);
  }
  // Pre-release.
  {
    size_t p = sc.pos();
    sc.take_sep();
    if (auto letter = pre_label(sc)) {
      // packaging's pattern: label [-_.]? [0-9]*: a separator with no number after it belongs
      // to the label ("1.0a." is 1.0a0).
      sc.take_sep();
      v.pre = std::make_pair(*letter, sc.number().value_or(Number()));
    } else {
      sc.seek(p);
    }
  }
  // Post-release: "-N" or [sep](post|rev|r)[sep][N].
  {
    size_t p = sc.pos();
    if (sc.take('-')) {
      if (auto n = sc.number()) {
        v.post = *n;
      } else {
        sc.seek(p);
      }
    }
    if (!v.post) {
      sc.take_sep();
      if (sc.take_word("post") || sc.take_word("rev") || sc.take_word("r")) {
        sc.take_sep();
        v.post = sc.number().value_or(Number());
      } else {
        sc.seek(p);
      }
    }
  }
  // Development release.
  {
    size_t p = sc.pos();
    sc.take_sep();
    if (sc.take_word("dev")) {
      sc.take_sep();
      v.dev = sc.number().value_or(Number());
    } else {
      sc.seek(p);
    }
  }
  // Local label.
  if (sc.take('+')) {
    auto rest = sc.rest();
    if (rest.empty() || rest.size() > 256) return std::nullopt;
    std::string seg;
    for (char c : rest) {
      if (c == '.' || c == '-' || c == '_') {
        if (seg.empty()) return std::nullopt;
        v.local.push_back(seg);
        seg.clear();
      } else if (is_alnum(c)) {
        seg += c;
      } else {
        return std::nullopt;
      }
    }
    if (seg.empty()) return std::nullopt;
    v.local.push_back(seg);
    sc.seek(lowered.size());
  }
  if (!sc.done()) return std::nullopt;
  return v;
}

std::string Version::public_str() const {
  std::string out;
  if (!epoch.is_zero()) out += epoch.digits + "!";
  for (size_t i = 0; i < release.size(); ++i) {
    if (i) out += '.';
    out += release[i].digits;
  }
  // cat(), not `"x" + std::string`: g++ 12 -O3 misreads that as an overlapping memcpy
  // (-Wrestrict, GCC bug 105651).
  if (pre)
    out += cat({pre->first == 'c' ? std::string_view("rc") : std::string_view(&pre->first, 1),
                pre->second.digits});
  if (post) out += cat({".post", post->digits});
  if (dev) out += cat({".dev", dev->digits});
  return out;
}

std::string Version::str() const {
  auto out = public_str();
  if (!local.empty()) {
    out += '+';
    for (size_t i = 0; i < local.size(); ++i) out += (i ? "." : "") + local[i];
  }
  return out;
}

Version Version::public_version() const {
  Version v = *this;
  v.local.clear();
  return v;
}

Version Version::base_version() const {
  Version v;
  v.epoch = epoch;
  v.release = release;
  return v;
}

int compare(const Version& a, const Version& b) {
  if (a.epoch != b.epoch) return a.epoch < b.epoch ? -1 : 1;
  auto ra = a.release, rb = b.release;
  size_t n = std::max(ra.size(), rb.size());
  ra.resize(n, Number());
  rb.resize(n, Number());
  if (int c = three_way(ra, rb)) return c;
  if (int c = three_way(pre_key(a), pre_key(b))) return c;
  if (int c = three_way(post_key(a), post_key(b))) return c;
  if (int c = three_way(dev_key(a), dev_key(b))) return c;
  return cmp_local(a.local, b.local);
}

namespace {

bool prefix_match(const Version& prefix, const Version& candidate) {
  if (prefix.epoch != candidate.epoch) return false;
  auto r = candidate.release;
  if (r.size() < prefix.release.size()) r.resize(prefix.release.size(), Number());
  return std::equal(prefix.release.begin(), prefix.release.end(), r.begin());
}

bool equal(const Specifier& s, const Version& c) {
  if (s.wildcard) return prefix_match(*s.parsed, c);
  if (!s.parsed->local.empty()) return compare(c, *s.parsed) == 0;
  return compare(c.public_version(), *s.parsed) == 0;
}

}  // namespace

bool Specifier::contains(const Version& c) const {
  // Arbitrary equality is string equality with the installed version as written out
  // (packaging's _compare_arbitrary): 2.1.0+cu121 is not ===2.1.0.
  if (op == "===") return to_lower(version) == to_lower(c.str());
  const Version& v = *parsed;
  auto pub = c.public_version();
  if (op == "==") return equal(*this, c);
  if (op == "!=") return !equal(*this, c);
  if (op == "<=") return compare(pub, v) <= 0;
  if (op == ">=") return compare(pub, v) >= 0;
  if (op == "<") {
    if (compare(pub, v) >= 0) return false;
    if (!v.is_prerelease() && c.is_prerelease() && compare(c.base_version(), v.base_version()) == 0)
      return false;
    return true;
  }
  if (op == ">") {
    if (compare(pub, v) <= 0) return false;
    if (!v.is_postrelease() && c.is_postrelease() &&
        compare(c.base_version(), v.base_version()) == 0)
      return false;
    return true;
  }
  if (op == "~=") {
    if (compare(pub, v) < 0) return false;
    Version prefix = v.base_version();
    prefix.release.pop_back();
    return prefix_match(prefix, c);
  }
  return false;
}

Result<SpecifierSet> SpecifierSet::parse(std::string_view text) {
  SpecifierSet set;
  if (trim(text).empty()) return set;
  static constexpr std::array<std::string_view, 8> kOps{
      "===", "~=", "==", "!=", "<=", ">=", "<", ">"};
  for (auto item : split(text, ',')) {
    auto t = trim(item);
    if (t.empty()) return bad_input(cat({"empty specifier in '", text, "'"}));
    Specifier s;
    for (auto op : kOps)
      if (t.substr(0, op.size()) == op) {
        s.op = std::string(op);
        break;
      }
    if (s.op.empty()) {
      bool looks_like_version = Version::parse(t).has_value();
      return bad_input(cat({"'", t, "' has no operator (==, !=, <, <=, >, >=, ~=)",
                            looks_like_version ? cat({"; did you mean '==", t, "'?"}) : ""}));
    }
    auto body = trim(t.substr(s.op.size()));
    s.version = std::string(body);
    if (body.empty()) return bad_input(cat({"'", t, "': missing version after ", s.op}));
    // packaging's grammar: whitespace may follow the operator, never sit inside the version;
    // === takes anything but whitespace, ';' (a marker follows) and ')' (a closing paren).
    if (body.find_first_of(" \t\r\n\v\f") != std::string_view::npos)
      return bad_input(cat({"'", t, "': whitespace inside the version"}));
    if (s.op == "===") {
      if (body.find_first_of(";)") != std::string_view::npos)
        return bad_input(cat({"'", t, "': === takes a version without ';' or ')'"}));
      set.specs_.push_back(std::move(s));
      continue;
    }
    auto vtext = body;
    if (vtext.size() > 2 && vtext.substr(vtext.size() - 2) == ".*") {
      if (s.op != "==" && s.op != "!=")
        return bad_input(cat({"'", t, "': a .* wildcard is allowed only with == and !="}));
      s.wildcard = true;
      vtext = vtext.substr(0, vtext.size() - 2);
    }
    auto v = Version::parse(vtext);
    if (!v) return bad_input(cat({"'", t, "': '", vtext, "' is not a PEP 440 version"}));
    if (s.wildcard && (v->pre || v->post || v->dev || !v->local.empty()))
      return bad_input(cat({"'", t, "': a .* wildcard must follow the release numbers"}));
    if (!v->local.empty() && s.op != "==" && s.op != "!=")
      return bad_input(cat(
          {"'", t, "': a local label (+", v->local.front(), ") is allowed only with == and !="}));
    if (s.op == "~=" && v->release.size() < 2)
      return bad_input(cat({"'", t, "': ~= needs at least two release numbers (e.g. ~=2.1)"}));
    s.parsed = std::move(*v);
    set.specs_.push_back(std::move(s));
  }
  return set;
}

bool SpecifierSet::contains(const Version& v) const {
  return std::all_of(specs_.begin(), specs_.end(),
                     [&](const Specifier& s) { return s.contains(v); });
}

bool SpecifierSet::contains(std::string_view version_text) const {
  auto v = Version::parse(version_text);
  if (!v) {
    // Not a PEP 440 version: only === can match it.
    return !specs_.empty() && std::all_of(specs_.begin(), specs_.end(), [&](const auto& s) {
      return s.op == "===" && to_lower(s.version) == to_lower(trim(version_text));
    });
  }
  // === compares the text as written (packaging's Specifier.filter: str(item).lower()).
  return std::all_of(specs_.begin(), specs_.end(), [&](const Specifier& s) {
    if (s.op == "===") return to_lower(s.version) == to_lower(trim(version_text));
    return s.contains(*v);
  });
}

std::string SpecifierSet::str() const {
  std::vector<std::string> parts;
  for (const auto& s : specs_) parts.push_back(s.str());
  return join(parts, ",");
}

}  // namespace anygpu::pep440

namespace anygpu {

std::string normalize_dist_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : trim(name)) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out += '-';
    sep = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (out == "pytorch") return "torch";
  return out;
}

}  // namespace anygpu
