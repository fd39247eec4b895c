#include "probe/libs/probe_client.h"

#include <signal.h>

#include <optional>

#include "probe/libs/probe_protocol.h"
#include "util/strings.h"
#include "worker/locate.h"
#include "worker/message.h"

namespace anygpu::worker {

struct ProbeSession::State {
  std::string root;
  std::chrono::milliseconds timeout;
  std::vector<LibraryRequest> libraries;
  std::vector<std::optional<LibraryResult>> results;  // by position in `libraries`
  std::vector<size_t> sent;                           // positions the running worker was given
  std::unique_ptr<Process> process;
  std::optional<std::string> cannot_start;

  // Positions still without an answer, up to the first that settled the vendor's search.
  std::vector<size_t> open_positions() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i] && ends_search(*results[i])) break;
      if (!results[i]) out.push_back(i);
    }
    return out;
  }

  void launch() {
    sent = open_positions();
    if (sent.empty()) return;
    auto exe = worker_executable();
    if (!exe) {
      cannot_start = exe.error().message;
      return;
    }
    auto p = Process::spawn(*exe, "probe");
    if (!p) {
      cannot_start = p.error().message;
      return;
    }
    ProbeRequest req;
    req.root = root;
    for (size_t i : sent) req.libraries.push_back(libraries[i]);
    // A request is a few hundred bytes: it fits the socket buffer, so this never waits.
    (*p)->send(encode_probe_request(req), Clock::now() + timeout);
    (*p)->close_input();
    process = std::move(*p);
  }

  size_t position_of(const std::string& vendor, const std::string& api) const {
    for (size_t i : sent)
      if (libraries[i].vendor == vendor && libraries[i].api == api && !results[i]) return i;
    return libraries.size();
  }

  void fail(size_t i, LibraryStatus status, std::string message, Diagnostics& warnings) {
    LibraryResult r;
    r.report.vendor = libraries[i].vendor;
    r.report.api = libraries[i].api;
    r.report.status = status;
    r.report.message = std::move(message);
    warnings.warn(cat({r.report.vendor, " ", r.report.api}),
                  cat({*r.report.message, "; kernel facts only"}));
    results[i] = std::move(r);
  }

  // One worker's run: what it answered, then its failure (if any) on the library it was in.
  // True when libraries remain that a fresh worker should try.
  bool collect(Clock::time_point deadline, Diagnostics& warnings) {
    std::string buffer;
    auto end = process->read_until(buffer, deadline, ends_with_end_line);
    auto reply = decode_probe_reply(buffer);
    for (auto& lib : reply.libraries) {
      size_t i = position_of(lib.result.report.vendor, lib.result.report.api);
      if (i == libraries.size()) {
        reply.error = "answer for a library that was not asked for";
        break;
      }
      if (lib.output.bytes) {
        std::string note = cat({"the library wrote ", std::to_string(lib.output.bytes),
                                " bytes to stdout/stderr (ignored): ", lib.output.excerpt});
        warnings.warn(cat({lib.result.report.vendor, " ", lib.result.report.api}), note);
        auto& m = lib.result.report.message;
        m = m ? *m + "; " + note : note;
      }
      results[i] = std::move(lib.result);
    }
    bool clean = end == ReadEnd::complete && reply.complete && !reply.error;
    Exit exit = process->wait(clean                      ? deadline
                              : end == ReadEnd::deadline ? Clock::now()
                                                         : deadline);
    if (clean) return false;
    // Closed its reply channel but would not exit: killed at the deadline, so a hang.
    if (end == ReadEnd::eof && exit.kind == Exit::Kind::signaled && exit.value == SIGKILL &&
        Clock::now() >= deadline)
      end = ReadEnd::deadline;
    auto failure = classify(end, exit, timeout, reply.error, process->output_excerpt());
    size_t culprit = reply.in_progress
                         ? position_of(reply.in_progress->first, reply.in_progress->second)
                         : libraries.size();
    if (culprit == libraries.size())  // died between libraries or before the first
      for (size_t i : sent)
        if (!results[i]) {
          culprit = i;
          break;
        }
    if (culprit < libraries.size()) fail(culprit, failure.status, failure.message, warnings);
    if (failure.status != LibraryStatus::timeout) return true;
    for (size_t i : open_positions())
      fail(i, LibraryStatus::timeout,
           cat({"not tried: the deadline passed in ", libraries[culprit].api}), warnings);
    return false;
  }
};

ProbeSession::ProbeSession(const HostRoot& host, std::vector<LibraryRequest> libraries)
    : s_(std::make_unique<State>()) {
  s_->root = host.options().root;
  s_->timeout = host.options().library_timeout;
  s_->results.resize(libraries.size());
  for (size_t i = 0; i < libraries.size(); ++i)
    s_->results[i] = missing_without_loading(host, libraries[i]);
  s_->libraries = std::move(libraries);
}

ProbeSession::ProbeSession(ProbeSession&&) noexcept = default;
ProbeSession::~ProbeSession() = default;

void ProbeSession::start() {
  s_->launch();
}

std::vector<LibraryResult> ProbeSession::finish(Clock::time_point deadline, Diagnostics& warnings) {
  auto& s = *s_;
  while (s.process || s.cannot_start) {
    if (s.cannot_start) {
      for (size_t i : s.open_positions())
        s.fail(i, LibraryStatus::error, *s.cannot_start, warnings);
      break;
    }
    bool again = s.collect(deadline, warnings);
    s.process.reset();
    if (!again) break;
    if (Clock::now() >= deadline) {
      for (size_t i : s.open_positions())
        s.fail(i, LibraryStatus::timeout, "not tried: no time left before the deadline", warnings);
      break;
    }
    s.launch();
  }
  std::vector<LibraryResult> out;
  for (auto& r : s.results) {
    if (!r) continue;  // after the library that settled the search
    bool last = ends_search(*r);
    out.push_back(std::move(*r));
    if (last) break;
  }
  return out;
}

}  // namespace anygpu::worker
