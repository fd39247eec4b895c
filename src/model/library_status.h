// What became of one vendor management library, in one vocabulary for discovery (the
// library report), the worker protocol and the metrics samplers. The JSON and the worker
// protocol carry the names to_string gives; C++ code compares the enum.
#pragma once

#include <optional>
#include <string_view>

namespace anygpu {

enum class LibraryStatus {
  loaded,    // opened and answered
  found,     // present, not opened (no probe for its API, or not asked to)
  missing,   // not on the host
  error,     // opened and failed, or could not be opened
  disabled,  // present, and loading libraries is off (--no-libs)
  // The parent's verdicts on a worker that did not finish; never sent by a worker.
  timeout,
  crashed,
  exited,
  protocol_error,
};

std::string_view to_string(LibraryStatus s);
// The status a worker may report of itself (loaded, found, missing, error, disabled); nullopt
// for any other text, the parent's verdicts included.
std::optional<LibraryStatus> parse_worker_library_status(std::string_view text);
// Whether the status is a verdict on a worker (timeout, crashed, exited, protocol-error).
bool is_worker_verdict(LibraryStatus s);

}  // namespace anygpu
