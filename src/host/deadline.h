// Vendor library calls run on a worker thread under a deadline. A call that never returns
// cannot be cancelled safely, so the worker is abandoned (it owns everything it touches) and
// the caller carries on with what the kernel told it.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

namespace anygpu {

// Number of workers abandoned so far in this process; the CLI exits with _Exit when nonzero
// so static destructors never race a thread that is still inside a vendor library.
int abandoned_workers();
void note_abandoned_worker();

template <class T>
class DeadlineTask {
 public:
  explicit DeadlineTask(std::function<T()> fn) {
    auto promise = std::make_shared<std::promise<T>>();
    future_ = promise->get_future();
    thread_ = std::thread([promise, fn = std::move(fn)]() mutable {
      try {
        promise->set_value(fn());
      } catch (...) {
        promise->set_exception(std::current_exception());
      }
    });
  }
  DeadlineTask(const DeadlineTask&) = delete;
  DeadlineTask& operator=(const DeadlineTask&) = delete;
  ~DeadlineTask() {
    if (thread_.joinable()) thread_.detach();
  }

  // The result if it arrives by `deadline`; otherwise nullopt and the worker is abandoned.
  std::optional<T> wait_until(std::chrono::steady_clock::time_point deadline) {
    if (future_.wait_until(deadline) != std::future_status::ready) {
      thread_.detach();
      note_abandoned_worker();
      return std::nullopt;
    }
    thread_.join();
    try {
      return future_.get();
    } catch (...) {
      return std::nullopt;  // a probe that threw told us nothing: same as no answer
    }
  }

 private:
  std::future<T> future_;
  std::thread thread_;
};

}  // namespace anygpu
