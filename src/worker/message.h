// The worker message format, version 1: what a vendor-library worker and its parent say over
// a pipe. Text lines ending in LF; each line is a tag and zero or more fields, separated by one
// space. A field is percent-encoded: '%', space, control bytes, DEL and every byte above 0x7e
// become %XX (upper-case hex), so a field never contains a space or a newline and any byte
// string (a library's name for its device included) travels unchanged. The first line of every
// stream is `anygpu-worker 1`. Tags are lower-case words with '-'.
//
// The parser is strict: an empty field, a bad escape, a tag outside [a-z-], a line over
// kMaxLine or a stream over kMaxMessage is an error naming the line. Bytes after the last LF are
// an unfinished line (the writer died mid-write): reported, never parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu::worker {

inline constexpr std::string_view kMagic = "anygpu-worker";
inline constexpr int kVersion = 1;
inline constexpr size_t kMaxLine = size_t{64} << 10;
inline constexpr size_t kMaxMessage = size_t{4} << 20;

struct Record {
  std::string tag;
  std::vector<std::string> fields;
  size_t line = 0;  // 1-based, for messages
};

std::string encode_field(std::string_view raw);
Result<std::string> decode_field(std::string_view encoded);

// Builds a stream line by line.
class Writer {
 public:
  Writer& line(std::string_view tag, std::initializer_list<std::string_view> fields = {});
  Writer& line(std::string_view tag, const std::vector<std::string>& fields);  // as many as given
  Writer& header();                                                            // `anygpu-worker 1`
  const std::string& text() const { return text_; }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

struct Records {
  std::vector<Record> records;       // every complete, well-formed line up to the first bad one
  std::optional<std::string> error;  // the first malformed line, named by number
  bool unfinished = false;           // bytes after the last LF
};

Records parse_records(std::string_view text);

// The header record's check: `anygpu-worker 1`, or an error saying what arrived instead.
std::optional<std::string> header_error(const Records& records);

// "line N: " + what, for errors found while interpreting records.
std::string at(const Record& r, std::string_view what);

// What a library wrote to fd 1/2 while the worker was in one of its calls.
struct StrayOutput {
  uint64_t bytes = 0;
  std::string excerpt;  // the first bytes, as written
};

// Every reply of every mode ends with this line.
inline constexpr std::string_view kEndLine = "end\n";

// True when `buffer` holds a whole reply: its last line is kEndLine.
bool ends_with_end_line(std::string_view buffer);

}  // namespace anygpu::worker
