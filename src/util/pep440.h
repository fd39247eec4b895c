// PEP 440 versions and specifier sets (https://peps.python.org/pep-0440/), as `packaging` and
// pip implement them: normalisation of alternative spellings, epochs, pre/post/dev releases,
// local labels ("+cu121"), and every specifier operator including "==2.1.*" and "~=".
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu::pep440 {

// A non-negative integer of any length (PEP 440 puts no bound on release numbers; packaging
// accepts "1.0000000000000000000000001"): decimal digits without leading zeros.
struct Number {
  std::string digits = "0";
  Number() = default;
  explicit Number(uint64_t v) : digits(std::to_string(v)) {}
  static Number from_digits(std::string_view d);  // strips leading zeros
  bool is_zero() const { return digits == "0"; }
  std::strong_ordering operator<=>(const Number& o) const {
    if (digits.size() != o.digits.size()) return digits.size() <=> o.digits.size();
    return digits <=> o.digits;
  }
  bool operator==(const Number& o) const = default;
};

struct Version {
  Number epoch;
  std::vector<Number> release;                 // at least one component
  std::optional<std::pair<char, Number>> pre;  // 'a', 'b' or 'c' (rc)
  std::optional<Number> post;
  std::optional<Number> dev;
  std::vector<std::string> local;  // lower case, split on . - _

  // Parses and normalises ("v1.0-RC1" -> 1.0rc1). Absent when not a PEP 440 version.
  static std::optional<Version> parse(std::string_view text);
  std::string str() const;         // normalised form
  std::string public_str() const;  // without the local label
  bool is_prerelease() const { return pre.has_value() || dev.has_value(); }
  bool is_postrelease() const { return post.has_value(); }
  Version public_version() const;  // local label dropped
  Version base_version() const;    // epoch and release only
};

// -1, 0, 1 in PEP 440 order (the local label takes part: 1.0 < 1.0+cu121).
int compare(const Version& a, const Version& b);

struct Specifier {
  std::string op;       // == != <= >= < > ~= ===
  std::string version;  // as written (for "==2.1.*" with the ".*")
  bool wildcard = false;
  std::optional<Version> parsed;  // absent for ===

  bool contains(const Version& v) const;
  std::string str() const { return op + version; }
};

class SpecifierSet {
 public:
  // Comma-separated specifiers; whitespace is ignored. Empty text = any version.
  static Result<SpecifierSet> parse(std::string_view text);
  // Installed-version semantics (as `pip check`): a pre-release is judged by its version
  // alone; the per-operator rules (no "2.2.0rc1" for "<2.2.0") still apply.
  bool contains(const Version& v) const;
  bool contains(std::string_view version_text) const;
  std::string str() const;  // "<2.2.0,>=2.1.0" in the order written
  const std::vector<Specifier>& specifiers() const { return specs_; }

 private:
  std::vector<Specifier> specs_;
};

}  // namespace anygpu::pep440

namespace anygpu {

// PEP 503 normalisation: lower case, runs of -_. become "-"; "pytorch" is torch's alias.
std::string normalize_dist_name(std::string_view name);

}  // namespace anygpu
