#include "metrics/remote_sampler.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>

#include "util/strings.h"
#include "worker/locate.h"
#include "worker/message.h"

namespace anygpu::worker {

namespace {

using std::chrono::milliseconds;

std::string seconds(milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", static_cast<double>(ms.count()) / 1000.0);
  return buf;
}

}  // namespace

milliseconds restart_backoff(unsigned failures_in_a_row) {
  if (failures_in_a_row == 0) return milliseconds(0);
  unsigned shift = std::min(failures_in_a_row - 1, 6u);
  return std::min(milliseconds(1000L << shift), milliseconds(60000));
}

RemoteSampler::RemoteSampler(SamplerSetup setup) : setup_(std::move(setup)) {}
RemoteSampler::~RemoteSampler() = default;  // Process kills and reaps its worker

WorkerHealth RemoteSampler::health() const {
  std::lock_guard lock(mu_);
  return health_;
}

void RemoteSampler::back_off() {
  ++failures_in_a_row_;
  retry_at_ = Clock::now() + restart_backoff(failures_in_a_row_);
}

RemoteSampler::Outcome RemoteSampler::fail(ReadEnd end, std::optional<std::string> protocol_error) {
  // A worker that answered wrongly, or not in time, is killed now; one that died is reaped.
  bool kill_now = end == ReadEnd::deadline || end == ReadEnd::overflow || protocol_error;
  Exit exit = process_->wait(kill_now ? Clock::now() : Clock::now() + setup_.timeout);
  auto f = classify(end, exit, setup_.timeout, protocol_error, process_->output_excerpt());
  process_.reset();
  buffer_.clear();
  unavailable_.clear();
  back_off();
  {
    std::lock_guard lock(mu_);
    ++health_.crashes;
    health_.status = f.status;
    health_.signal.reset();
    health_.exit_code.reset();
    // A worker killed for a timeout or a bad reply ended by our SIGKILL: not its signal.
    if (f.status == LibraryStatus::crashed && exit.kind == Exit::Kind::signaled)
      health_.signal = exit.value;
    if (f.status == LibraryStatus::exited && exit.kind == Exit::Kind::exited)
      health_.exit_code = exit.value;
    health_.message = f.message;
  }
  return {State::failed,
          {},
          cat({setup_.api, " worker ", to_string(f.status), ": ", f.message, "; restarting in ",
               seconds(restart_backoff(failures_in_a_row_))})};
}

RemoteSampler::Outcome RemoteSampler::start(Clock::time_point deadline) {
  auto exe = worker_executable();
  if (!exe) return {State::unavailable, {}, exe.error().message};
  auto p = Process::spawn(*exe, "sample");
  if (!p) return {State::unavailable, {}, p.error().message};
  process_ = std::move(*p);
  buffer_.clear();
  if (!process_->send(encode_sampler_setup(setup_), deadline)) return fail(ReadEnd::eof, {});
  auto end = process_->read_until(buffer_, deadline, readiness_complete);
  if (end != ReadEnd::complete) return fail(end, {});
  auto ready = decode_readiness(buffer_);
  buffer_.clear();
  if (ready.error) return fail(end, ready.error);
  if (ready.failed) {
    // Not a crash: the library is not usable here (init failed). Asked again after a backoff.
    process_->wait(deadline);
    process_.reset();
    back_off();
    unavailable_ = *ready.failed;
    return {State::unavailable, {}, *ready.failed};
  }
  return {State::sampled, {}, {}};
}

RemoteSampler::Outcome RemoteSampler::sample() {
  auto deadline = Clock::now() + setup_.timeout;
  if (!process_) {
    if (auto now = Clock::now(); now < retry_at_) {
      auto left = std::chrono::duration_cast<milliseconds>(retry_at_ - now);
      if (!unavailable_.empty())  // the library's own answer: not usable here (yet)
        return {State::unavailable, {}, cat({unavailable_, "; trying again in ", seconds(left)})};
      auto h = health();
      return {State::waiting,
              {},
              cat({setup_.api, " worker ", h.status ? to_string(*h.status) : "failed", ": ",
                   h.message.value_or(""), "; restarting in ", seconds(left)})};
    }
    auto started = start(deadline);
    if (!process_) return started;
  }
  if (!process_->send(kSampleLine, deadline)) return fail(ReadEnd::eof, {});
  auto end = process_->read_until(buffer_, deadline, ends_with_end_line);
  if (end != ReadEnd::complete) return fail(end, {});
  auto reply = decode_samples(buffer_, setup_.targets);
  buffer_.clear();
  if (reply.error) return fail(end, reply.error);
  failures_in_a_row_ = 0;
  unavailable_.clear();
  {
    std::lock_guard lock(mu_);
    health_.status.reset();
    health_.signal.reset();
    health_.exit_code.reset();
    health_.message.reset();
  }
  Outcome out{State::sampled, std::move(reply.samples), {}};
  if (reply.output.bytes)
    out.message = cat({setup_.api, " wrote ", std::to_string(reply.output.bytes),
                       " bytes to stdout/stderr (ignored): ", reply.output.excerpt});
  return out;
}

}  // namespace anygpu::worker
