#include "util/yaml_reader.h"

#include <algorithm>

#include "util/strings.h"
#include "util/suggest.h"

namespace anygpu {

namespace {
// Nested deeper than any real file needs; refuses pathological input before yaml-cpp's own
// guard, which is far deeper.
constexpr size_t kMaxFileBytes = 4 << 20;
}  // namespace

Result<YAML::Node> YamlReader::parse(std::string_view text) const {
  if (text.size() > kMaxFileBytes)
    return bad_input(cat({file_, ": larger than 4 MiB; not a configuration file"}));
  if (text.find('\0') != std::string_view::npos)
    return bad_input(cat({file_, ": contains NUL bytes; not a YAML text file"}));
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return bad_input(cat({file_, ":", std::to_string(e.mark.line + 1), ":",
                          std::to_string(e.mark.column + 1), ": ", e.msg}));
  }
}

std::string YamlReader::where(const YAML::Node& at) const {
  auto m = at.Mark();
  if (m.is_null()) return file_;
  return cat({file_, ":", std::to_string(m.line + 1), ":", std::to_string(m.column + 1)});
}

void YamlReader::fail(const YAML::Node& at, std::string_view message) const {
  throw LocatedError{cat({where(at), ": ", message})};
}

void YamlReader::expect_map(const YAML::Node& n, std::string_view what) const {
  if (!n.IsMap()) fail(n, cat({what, ": expected a mapping"}));
}

void YamlReader::expect_sequence(const YAML::Node& n, std::string_view what) const {
  if (!n.IsSequence()) fail(n, cat({what, ": expected a list"}));
}

void YamlReader::check_keys(const YAML::Node& map, std::span<const std::string_view> allowed,
                            std::span<const std::string_view> required) const {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) fail(it->first, "keys must be plain strings");
    const auto& key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(it->first, cat({"unknown key '", key, "'", did_you_mean(key, allowed)}));
  }
  for (auto key : required)
    if (!map[std::string(key)]) fail(map, cat({"missing key '", key, "'"}));
}

std::string YamlReader::scalar(const YAML::Node& n, std::string_view what) const {
  if (!n || !n.IsScalar()) fail(n, cat({what, ": expected a string"}));
  return n.Scalar();
}

std::string YamlReader::string_at(const YAML::Node& map, std::string_view key) const {
  auto n = map[std::string(key)];
  if (!n) fail(map, cat({"missing key '", key, "'"}));
  auto s = scalar(n, key);
  if (s.empty()) fail(n, cat({key, ": must not be empty"}));
  return s;
}

std::optional<std::string> YamlReader::optional_string(const YAML::Node& map,
                                                       std::string_view key) const {
  auto n = map[std::string(key)];
  if (!n) return std::nullopt;
  return scalar(n, key);
}

std::vector<std::string> YamlReader::strings(const YAML::Node& n, std::string_view what) const {
  expect_sequence(n, what);
  std::vector<std::string> out;
  for (const auto& item : n) out.push_back(scalar(item, what));
  return out;
}

bool YamlReader::boolean(const YAML::Node& n, std::string_view what) const {
  auto s = scalar(n, what);
  if (s == "true") return true;
  if (s == "false") return false;
  fail(n, cat({what, ": expected true or false, got '", s, "'"}));
}

double YamlReader::number(const YAML::Node& n, std::string_view what) const {
  auto s = scalar(n, what);
  auto v = parse_double(s);
  if (!v || *v < 0 || *v > 1e12)
    fail(n, cat({what, ": expected a non-negative number, got '", s, "'"}));
  return *v;
}

uint16_t YamlReader::hex16(const YAML::Node& n, std::string_view what) const {
  auto s = scalar(n, what);
  auto v = (s.size() == 6 && s[0] == '0' && s[1] == 'x') ? parse_hex(s) : std::nullopt;
  if (!v || *v > 0xffff)
    fail(n, cat({what, ": expected a 4-digit hex id like \"0x10de\", got '", s, "'"}));
  return static_cast<uint16_t>(*v);
}

}  // namespace anygpu
