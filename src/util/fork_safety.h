// Fork safety for code the C ABI reaches: a program may fork() while other threads are inside
// their first anygpu calls, and the child may call anygpu at once.
//
// A function-local static (`static const T x = make();`) is built under a one-time guard. A
// fork() while another thread holds that guard copies it, held, into the child, where the
// holder does not exist: the child's first use waits forever. Two tools keep that from
// happening:
// - ForkSafeLazy<T> for anygpu's own lazily built globals: a claim to build carries the
//   process's fork generation (bumped in every child by a pthread_atfork handler), so a child
//   sees a claim made before its fork as abandoned and builds the value itself
//   (tests/capi/no_init_guards.py: libanygpu.so has no guard left);
// - ForkGate around calls into a library that keeps such statics of its own (yaml-cpp builds
//   its scanner's regular expressions on first use): fork() waits until no thread is inside.
#pragma once

#include <atomic>
#include <cstdint>

namespace anygpu {

namespace fork_safe_detail {
// This process's generation: never 0, different from its parent's (at the fork).
uint32_t generation();
// Lets another thread of this process finish its build.
void pause();
}  // namespace fork_safe_detail

// Constant-initialised, trivially destructible: declare it `constinit` at namespace scope. The
// value is never destroyed (a thread still reading it at exit must not find it gone).
template <class T>
class ForkSafeLazy {
 public:
  constexpr ForkSafeLazy() = default;
  ForkSafeLazy(const ForkSafeLazy&) = delete;
  ForkSafeLazy& operator=(const ForkSafeLazy&) = delete;

  // The value, built by `make()` on the first call in this process. A `make` that throws
  // leaves it unbuilt for the next call.
  template <class Make>
  const T& get(Make&& make) {
    if (const T* v = value_.load(std::memory_order_acquire)) return *v;
    return build(make);
  }

 private:
  template <class Make>
  const T& build(Make& make) {
    while (true) {
      if (const T* v = value_.load(std::memory_order_acquire)) return *v;
      uint32_t mine = fork_safe_detail::generation();
      uint32_t seen = claim_.load(std::memory_order_acquire);
      if (seen == mine) {  // a thread of this process is building it
        fork_safe_detail::pause();
        continue;
      }
      // Unclaimed (0), or claimed before a fork by a thread this process does not have.
      if (!claim_.compare_exchange_strong(seen, mine, std::memory_order_acq_rel)) continue;
      try {
        const T* built = new T(make());
        value_.store(built, std::memory_order_release);
        return *built;
      } catch (...) {
        claim_.store(0, std::memory_order_release);
        throw;
      }
    }
  }

  std::atomic<const T*> value_{nullptr};
  std::atomic<uint32_t> claim_{0};
};

// While one lives, the thread is inside a library with lazily initialised statics of its own,
// and fork() (pthread_atfork) waits for it to leave. Nests within a thread; copies hold too.
// Create and destroy it on the same thread.
class ForkGate {
 public:
  ForkGate() { enter(); }
  ForkGate(const ForkGate&) { enter(); }
  ForkGate& operator=(const ForkGate&) { return *this; }
  ~ForkGate() { leave(); }

 private:
  static void enter();
  static void leave();
};

}  // namespace anygpu
