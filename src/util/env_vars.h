// Every environment variable anygpu reads, one row each: who reads it, what it accepts, what it
// means, and the one parser that decides. The CLI, the C ABI and the Python package (which asks
// the C ABI, anygpu_environment_json) accept the same values and refuse the others with the same
// message. docs/environment.md shows this table; a test holds the two equal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

namespace anygpu {

enum class EnvKind {
  directory,       // an existing directory
  executable,      // an absolute path to an executable regular file
  path,            // any text naming a file, not blank (checked by the one that opens it)
  boolean,         // 1, 0, true, false, yes, no (any case)
  integer,         // a whole number in [min, max]
  keyword,         // one of `words`
  name,            // an identifier: a lower-case letter, then lower-case letters, digits, _ . -
  list,            // comma-separated items of printable text without spaces
  indices,         // comma-separated whole numbers up to max (empty items skipped)
  text,            // any text without control characters
  any,             // anything (only its presence matters)
  torch_device,    // a torch device type of the registry (the C ABI checks; util cannot see it)
  hostlist,        // a Slurm hostlist expression (the C ABI checks with cluster's parser)
  tasks_per_node,  // Slurm's "2(x3),1" (the C ABI checks with cluster's parser)
};

// Who reads a variable (a bit set). The CLI and the C ABI check every variable read by either at
// each start or call (`steers`), so both accept exactly the same environments.
enum EnvReader : unsigned { kEnvCli = 1, kEnvCAbi = 2, kEnvPython = 4 };

struct EnvVariable {
  std::string_view name;
  EnvKind kind;
  unsigned readers;
  bool steers;                // checked at every CLI start and C ABI call
  std::string_view accepted;  // "expected …" in messages, and the docs' column
  std::string_view meaning;
  uint64_t min = 0, max = 0;    // integer
  std::string_view words = {};  // keyword: the allowed values, space-separated
  bool empty_is_unset = true;   // false: set but empty is a value (judged by the kind)
};

// "directory", "integer", … (EnvKind's names), as anygpu_environment_json reports them.
std::string_view env_kind_name(EnvKind kind);

std::span<const EnvVariable> env_variables();
const EnvVariable* find_env_variable(std::string_view name);

struct EnvValue {
  std::string text;                // trimmed
  std::optional<uint64_t> number;  // integer
  std::optional<bool> flag;        // boolean
};

// `value` judged by `row`: nullopt when it counts as unset (empty), else the parsed value, else
// bad_input `NAME="VALUE": …` with the value's control characters escaped. torch_device,
// hostlist and tasks_per_node values are checked by the C ABI, which sees the registry and the
// Slurm parsers; here they pass as text.
Result<std::optional<EnvValue>> parse_env_value(const EnvVariable& row, std::string_view value);

// The row's variable read from this process's environment and parsed.
Result<std::optional<EnvValue>> read_env(std::string_view name);

// Every `steers` row set in this process's environment, parsed: the first refusal in table
// order (its variable's name in `refused` when given), or true.
Result<bool> check_steering_env(std::string* refused = nullptr);

// `NAME="VALUE": why`, the one shape of every refusal.
std::string env_refusal(std::string_view name, std::string_view value, std::string_view why);

}  // namespace anygpu
