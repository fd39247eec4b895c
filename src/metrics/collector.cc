#include "metrics/collector.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "host/deadline.h"
#include "metrics/backend.h"
#include "probe/probe.h"

namespace anygpu {

namespace {

using Clock = std::chrono::steady_clock;
using Samples = Result<std::vector<DeviceSample>>;

// One backend and what the snapshot shows for it.
struct Slot {
  std::shared_ptr<MetricsBackend> backend;
  // True while a sample() call runs, abandoned ones included: a backend stuck in its vendor
  // library gets no second call piling up behind the first.
  std::shared_ptr<std::atomic<bool>> in_flight = std::make_shared<std::atomic<bool>>(false);
  std::vector<DeviceSample> devices;  // the last good sample (identities until there is one)
  BackendStatus status;
};

// A call that has started, or the reason none was started.
struct Call {
  std::unique_ptr<DeadlineTask<Samples>> task;
  std::optional<std::string> skipped;
};

Call begin_call(const Slot& slot) {
  Call c;
  if (slot.in_flight->exchange(true)) {
    c.skipped = "an earlier call has not returned (abandoned at its deadline)";
    return c;
  }
  c.task = std::make_unique<DeadlineTask<Samples>>(
      [backend = slot.backend, flag = slot.in_flight]() -> Samples {
        struct Done {
          std::atomic<bool>& f;
          ~Done() { f.store(false); }
        } done{*flag};
        return backend->sample();
      });
  return c;
}

// A backend is up when its sample gave a value: one that answers with identities alone (Ascend
// without DCMI, hwmon with nothing to read) is down. A device left asleep (runtime-suspended)
// had nothing to give, so a backend of sleeping devices only is up.
bool yields_values(const std::vector<DeviceSample>& samples, std::string& why) {
  bool all_asleep = !samples.empty();
  for (const auto& s : samples) {
    if (s.utilization_ratio || s.memory_used_bytes || s.memory_total_bytes ||
        s.temperature_celsius || !s.temperatures_celsius.empty() || s.power_watts ||
        s.power_limit_watts || s.energy_joules || !s.clocks_hertz.empty())
      return true;
    bool asleep = false;
    for (const auto& w : s.warnings) asleep = asleep || w.starts_with("runtime-suspended");
    all_asleep = all_asleep && asleep;
  }
  why = "no value for any device";
  return all_asleep;
}

// The library worker's state (crash count, last failure) as the backend reports it now.
void note_library(Slot& slot) {
  slot.status.library = slot.backend->library_status();
}

// A backend with a library worker ends its own call: the worker is killed a little before the
// deadline (remote_library.cc). On a loaded machine that kill and reap can end just after the
// deadline, so such a call gets this much longer and a hang is recorded as the worker's timeout,
// not as an abandoned call with no word from the worker.
constexpr std::chrono::milliseconds kWorkerSettle{250};

// Waits for the call and records its outcome in the slot (caller holds the slot's lock, or
// owns the slot alone).
void finish_call(Call& call, Clock::time_point deadline, std::chrono::milliseconds timeout,
                 Slot& slot) {
  auto& st = slot.status;
  if (call.skipped) {
    st.up = false;
    st.error = *call.skipped;
    return;
  }
  auto result = call.task->wait_until(st.library ? deadline + kWorkerSettle : deadline);
  note_library(slot);
  if (!result) {
    st.up = false;
    st.error = "no answer within " + std::to_string(timeout.count()) + " ms; call abandoned";
    return;
  }
  if (!*result) {
    st.up = false;
    st.error = result->error().message;
    return;
  }
  slot.devices = std::move(**result);
  st.source = slot.backend->source();
  st.error.reset();
  std::string why;
  st.up = yields_values(slot.devices, why);
  if (st.up)
    st.last_success = std::chrono::system_clock::now();
  else
    st.error = why;
}

std::vector<Slot> make_slots(std::vector<std::shared_ptr<MetricsBackend>> backends) {
  std::vector<Slot> slots;
  for (auto& b : backends) {
    Slot s;
    s.status.vendor = b->vendor();
    s.status.source = b->source();
    s.devices = b->identities();
    s.backend = std::move(b);
    note_library(s);
    slots.push_back(std::move(s));
  }
  return slots;
}

// Every backend at once, each under the same deadline.
void sample_round(std::vector<Slot>& slots, std::chrono::milliseconds timeout) {
  std::vector<Call> calls;
  for (auto& s : slots) calls.push_back(begin_call(s));
  auto deadline = Clock::now() + timeout;
  for (size_t i = 0; i < slots.size(); ++i) finish_call(calls[i], deadline, timeout, slots[i]);
}

MetricsSnapshot compose(const std::vector<Slot>& slots) {
  MetricsSnapshot snap;
  snap.timestamp = std::chrono::system_clock::now();
  for (const auto& s : slots) {
    snap.devices.insert(snap.devices.end(), s.devices.begin(), s.devices.end());
    snap.backends.push_back(s.status);
  }
  return snap;
}

class Collector final : public MetricsCollector {
 public:
  Collector(std::vector<Slot> slots, CollectorOptions options)
      : slots_(std::move(slots)), options_(options) {
    sample_round(slots_, options_.call_timeout);
    publish();
    for (size_t i = 0; i < slots_.size(); ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~Collector() override { stop(); }

  std::shared_ptr<const MetricsSnapshot> snapshot() const override {
    std::lock_guard lock(mu_);
    return latest_;
  }

  void stop() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    // Joins promptly: a worker waits at most one call_timeout for a vendor call.
    for (auto& w : workers_)
      if (w.joinable()) w.join();
  }

 private:
  void work(size_t i) {
    auto next = Clock::now() + options_.interval;
    for (;;) {
      {
        std::unique_lock lock(mu_);
        if (cv_.wait_until(lock, next, [this] { return stopping_; })) return;
      }
      // The slot's backend and in_flight flag never change, so the call needs no lock.
      Call call = begin_call(slots_[i]);
      auto deadline = Clock::now() + options_.call_timeout;
      if (call.task) {
        // Wait outside the lock, then record under it.
        std::optional<Samples> result = call.task->wait_until(deadline);
        std::lock_guard lock(mu_);
        record(i, std::move(result));
      } else {
        std::lock_guard lock(mu_);
        finish_call(call, deadline, options_.call_timeout, slots_[i]);
        note_library(slots_[i]);
        publish_locked();
      }
      next += options_.interval;
      if (auto now = Clock::now(); next < now) next = now + options_.interval;  // fell behind
    }
  }

  void record(size_t i, std::optional<Samples> result) {
    auto& slot = slots_[i];
    auto& st = slot.status;
    note_library(slot);
    if (!result) {
      st.up = false;
      st.error = "no answer within " + std::to_string(options_.call_timeout.count()) +
                 " ms; call abandoned";
    } else if (!*result) {
      st.up = false;
      st.error = result->error().message;
    } else {
      slot.devices = std::move(**result);
      st.error.reset();
      std::string why;
      st.up = yields_values(slot.devices, why);
      if (st.up)
        st.last_success = std::chrono::system_clock::now();
      else
        st.error = why;
    }
    publish_locked();
  }

  void publish() {
    std::lock_guard lock(mu_);
    publish_locked();
  }
  void publish_locked() { latest_ = std::make_shared<const MetricsSnapshot>(compose(slots_)); }

  std::vector<Slot> slots_;
  CollectorOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::shared_ptr<const MetricsSnapshot> latest_;
  std::vector<std::thread> workers_;
};

std::vector<std::shared_ptr<MetricsBackend>> discover(const HostOptions& options) {
  HostRoot host(options);
  return make_backends(host, probe(host), Registry::builtin());
}

Result<bool> check(const CollectorOptions& o) {
  if (o.interval.count() <= 0) return bad_input("metrics: the interval must be positive");
  if (o.call_timeout.count() <= 0) return bad_input("metrics: the call timeout must be positive");
  return true;
}

}  // namespace

Result<std::unique_ptr<MetricsCollector>> start_collector(
    std::vector<std::shared_ptr<MetricsBackend>> backends, CollectorOptions options) {
  if (auto ok = check(options); !ok) return ok.error();
  return std::unique_ptr<MetricsCollector>(
      std::make_unique<Collector>(make_slots(std::move(backends)), options));
}

MetricsSnapshot sample_once(const std::vector<std::shared_ptr<MetricsBackend>>& backends,
                            CollectorOptions options) {
  auto slots = make_slots(backends);
  sample_round(slots, options.call_timeout);
  return compose(slots);
}

Result<std::unique_ptr<MetricsCollector>> start_collector(const HostRoot& host,
                                                          const Inventory& inventory,
                                                          CollectorOptions options) {
  if (auto ok = check(options); !ok) return ok.error();
  return start_collector(make_backends(host, inventory, Registry::builtin()), options);
}

Result<std::unique_ptr<MetricsCollector>> start_collector(HostOptions host,
                                                          CollectorOptions options) {
  if (auto ok = check(options); !ok) return ok.error();
  return start_collector(discover(host), options);
}

Result<MetricsSnapshot> sample_once(HostOptions host, CollectorOptions options) {
  if (auto ok = check(options); !ok) return ok.error();
  return sample_once(discover(host), options);
}

}  // namespace anygpu
