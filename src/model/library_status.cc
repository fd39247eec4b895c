#include "model/library_status.h"

#include <array>
#include <utility>

namespace anygpu {

namespace {

constexpr std::array<std::pair<LibraryStatus, std::string_view>, 9> kNames{{
    {LibraryStatus::loaded, "loaded"},
    {LibraryStatus::found, "found"},
    {LibraryStatus::missing, "missing"},
    {LibraryStatus::error, "error"},
    {LibraryStatus::disabled, "disabled"},
    {LibraryStatus::timeout, "timeout"},
    {LibraryStatus::crashed, "crashed"},
    {LibraryStatus::exited, "exited"},
    {LibraryStatus::protocol_error, "protocol-error"},
}};

}  // namespace

std::string_view to_string(LibraryStatus s) {
  for (const auto& [status, name] : kNames)
    if (status == s) return name;
  return "error";
}

bool is_worker_verdict(LibraryStatus s) {
  return s == LibraryStatus::timeout || s == LibraryStatus::crashed || s == LibraryStatus::exited ||
         s == LibraryStatus::protocol_error;
}

std::optional<LibraryStatus> parse_worker_library_status(std::string_view text) {
  for (const auto& [status, name] : kNames)
    if (name == text && !is_worker_verdict(status)) return status;
  return std::nullopt;
}

}  // namespace anygpu
