// Small string helpers shared by every parser. No locale, no exceptions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace anygpu {

std::string_view trim(std::string_view s);
std::string_view first_line(std::string_view s);
std::vector<std::string_view> split(std::string_view s, char sep);
std::vector<std::string_view> split_lines(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string to_lower(std::string_view s);
std::string cat(std::initializer_list<std::string_view> parts);
bool is_printable_text(std::string_view s);
// A POSIX shell variable name ([A-Za-z_][A-Za-z0-9_]*): safe after `export` and `env`.
bool is_env_name(std::string_view s);
// `s` with every control character (C0, DEL, and C1 as UTF-8 U+0080..U+009F) written as \n, \t
// or \xNN, so a file or directory name cannot move the cursor or forge lines in a message.
std::string escape_control(std::string_view s);
// True when `s` holds a C0 control character or DEL: a value that must not reach an argv.
bool has_control_char(std::string_view s);

// Strict numeric parsers: the whole (trimmed) input must be the number.
std::optional<int64_t> parse_int(std::string_view s);
std::optional<uint64_t> parse_uint(std::string_view s);
std::optional<uint64_t> parse_hex(std::string_view s);  // accepts an optional 0x prefix
// Only 0-9 and a-f (digests and ids as OCI and Docker write them); true for "".
bool is_lower_hex(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// "0x10de" style, lower case, zero padded to `digits`.
std::string hex(uint64_t value, int digits);

// Replaces every "{name}" in `pattern` by `value`.
std::string replace_placeholder(std::string_view pattern, std::string_view name,
                                std::string_view value);

// Token after `marker` (whitespace-delimited), e.g. the version after "Kernel Module".
std::optional<std::string> token_after(std::string_view text, std::string_view marker);
// Value of a `key=value` (or `key = value`) line; quotes around the value are removed.
std::optional<std::string> key_value(std::string_view text, std::string_view key);

}  // namespace anygpu
