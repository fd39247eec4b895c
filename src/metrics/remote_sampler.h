// The parent's side of a metrics worker: one long-lived worker per library sampler, spawned on
// the first sample and asked for one sample per call, so a scrape interval costs a line each
// way, not a fork, a dlopen and an init. Every call returns by its deadline: a worker that
// crashes, exits, hangs past the deadline or garbles a reply is killed and reaped, the failure
// is the call's outcome, and a new worker is started only after a backoff (1 s doubling to
// 60 s, reset by a healthy sample). At most one worker per sampler exists at any time.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "metrics/sample.h"
#include "metrics/sample_protocol.h"
#include "worker/process.h"

namespace anygpu::worker {

// The wait before the next start after `failures_in_a_row` failures: 1 s, 2 s, 4 s … 60 s.
std::chrono::milliseconds restart_backoff(unsigned failures_in_a_row);

// What the parent knows of a sampler's worker, safe to read from any thread.
struct WorkerHealth {
  uint64_t crashes = 0;                 // workers lost: crashed, exited, timed out, protocol error
  std::optional<LibraryStatus> status;  // the last failure's status, until a healthy sample
  std::optional<int> signal, exit_code;
  std::optional<std::string> message;
};

class RemoteSampler {
 public:
  explicit RemoteSampler(SamplerSetup setup);
  ~RemoteSampler();  // kills and reaps the worker
  RemoteSampler(const RemoteSampler&) = delete;
  RemoteSampler& operator=(const RemoteSampler&) = delete;

  enum class State {
    sampled,      // `samples` holds one sample per target
    unavailable,  // the library cannot be used here (init failed, no worker): `message` says why
    failed,       // the worker crashed, exited, hung or garbled: counted in health().crashes
    waiting,      // a restart is due later (backoff after a failure): `message` says when
  };
  struct Outcome {
    State state = State::failed;
    std::vector<DeviceSample> samples;
    std::string message;
  };
  // Never called concurrently with itself.
  Outcome sample();

  WorkerHealth health() const;
  const SamplerSetup& setup() const { return setup_; }
  pid_t worker_pid() const { return process_ ? process_->pid() : -1; }

 private:
  Outcome fail(ReadEnd end, std::optional<std::string> protocol_error);
  Outcome start(Clock::time_point deadline);
  void back_off();

  SamplerSetup setup_;
  std::unique_ptr<Process> process_;
  std::string buffer_;
  unsigned failures_in_a_row_ = 0;
  Clock::time_point retry_at_{};
  std::string unavailable_;  // why the library could not be used, while waiting to retry
  mutable std::mutex mu_;
  WorkerHealth health_;
};

}  // namespace anygpu::worker
