// Strict YAML reading with located errors (FILE:LINE:COLUMN) for every data and config file.
// Inside a reader, problems are thrown as LocatedError; parse_yaml_file's callers turn them
// into Error values at the module boundary.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/fork_safety.h"
#include "util/result.h"

namespace anygpu {

struct LocatedError {
  std::string message;  // already "FILE:LINE:COLUMN: …"
};

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  // Parses `text`; syntax errors and excessive nesting are errors with a location.
  Result<YAML::Node> parse(std::string_view text) const;

  [[noreturn]] void fail(const YAML::Node& at, std::string_view message) const;
  std::string where(const YAML::Node& at) const;

  void expect_map(const YAML::Node& n, std::string_view what) const;
  void expect_sequence(const YAML::Node& n, std::string_view what) const;
  // Unknown keys fail with a "did you mean" suggestion; missing required keys fail too.
  void check_keys(const YAML::Node& map, std::span<const std::string_view> allowed,
                  std::span<const std::string_view> required) const;

  std::string scalar(const YAML::Node& n, std::string_view what) const;
  std::string string_at(const YAML::Node& map, std::string_view key) const;
  std::optional<std::string> optional_string(const YAML::Node& map, std::string_view key) const;
  std::vector<std::string> strings(const YAML::Node& n, std::string_view what) const;
  bool boolean(const YAML::Node& n, std::string_view what) const;
  double number(const YAML::Node& n, std::string_view what) const;
  uint16_t hex16(const YAML::Node& n, std::string_view what) const;

  const std::string& file() const { return file_; }

 private:
  // yaml-cpp builds statics on first use (its scanner's regular expressions, an empty scalar):
  // while a reader lives, fork() waits (util/fork_safety.h). Nodes a parse returns are read
  // within a reader's life.
  ForkGate gate_;
  std::string file_;
};

}  // namespace anygpu
