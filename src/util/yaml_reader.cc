#include "util/yaml_reader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "util/strings.h"
#include "util/suggest.h"

namespace anygpu {

namespace {
// Nested deeper than any real file needs; refuses pathological input before yaml-cpp's own
// guard, which is far deeper.
constexpr size_t kMaxFileBytes = 4 << 20;

std::string at_mark(const std::string& file, const YAML::Mark& m) {
  return cat({file, ":", std::to_string(m.line + 1), ":", std::to_string(m.column + 1)});
}

// Walks the parser's events once to find what the node API hides: yaml-cpp keeps only the
// first of two equal keys reachable (`map["k"]`), and YAML::Load reads only the first document.
// Both would silently drop what the author wrote, so both are errors.
class StrictnessCheck final : public YAML::EventHandler {
 public:
  explicit StrictnessCheck(const std::string& file) : file_(file) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    node(m, &value);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(m, nullptr);
    stack_.push_back({false, true, {}});
  }
  void OnSequenceEnd() override { stack_.pop_back(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(m, nullptr);
    stack_.push_back({true, true, {}});
  }
  void OnMapEnd() override { stack_.pop_back(); }

  std::optional<std::string> error;

 private:
  struct Level {
    bool is_map;
    bool expect_key;  // in a map: the next node is a key
    std::set<std::string> keys;
  };

  // Called for every node before a collection is entered: checks it when it is a map key.
  void node(const YAML::Mark& m, const std::string* scalar) {
    if (stack_.empty() || !stack_.back().is_map) return;
    auto& level = stack_.back();
    bool is_key = level.expect_key;
    level.expect_key = !level.expect_key;
    if (!is_key || !scalar || error) return;
    if (!level.keys.insert(*scalar).second)
      error = cat({at_mark(file_, m), ": duplicate key '", *scalar,
                   "' (a second copy would silently replace or be ignored; keep one)"});
  }

  const std::string& file_;
  std::vector<Level> stack_;
};

// Syntax errors throw; otherwise the first duplicate key or extra document, if any.
std::optional<std::string> strictness_error(const std::string& file, std::string_view text) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  StrictnessCheck check(file);
  if (!parser.HandleNextDocument(check)) return std::nullopt;
  if (check.error) return check.error;
  // A second document: its first token's position is where the author should look.
  struct FirstMark final : YAML::EventHandler {
    std::optional<YAML::Mark> mark;
    void seen(const YAML::Mark& m) {
      if (!mark) mark = m;
    }
    void OnDocumentStart(const YAML::Mark& m) override { seen(m); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  const std::string&) override {
      seen(m);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
      seen(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
      seen(m);
    }
    void OnMapEnd() override {}
  } second;
  if (parser.HandleNextDocument(second))
    return cat({second.mark ? at_mark(file, *second.mark) : file,
                ": a second YAML document; this file must hold exactly one (remove the '---' "
                "and what follows, or merge it into the first)"});
  return std::nullopt;
}

}  // namespace

Result<YAML::Node> YamlReader::parse(std::string_view text) const {
  if (text.size() > kMaxFileBytes)
    return bad_input(cat({file_, ": larger than 4 MiB; not a configuration file"}));
  if (text.find('\0') != std::string_view::npos)
    return bad_input(cat({file_, ": contains NUL bytes; not a YAML text file"}));
  try {
    if (auto problem = strictness_error(file_, text)) return bad_input(std::move(*problem));
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return bad_input(cat({at_mark(file_, e.mark), ": ", e.msg}));
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
