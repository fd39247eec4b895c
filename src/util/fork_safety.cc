#include "util/fork_safety.h"

#include <pthread.h>

#include <ctime>

namespace anygpu {

namespace {

std::atomic<uint32_t> g_generation{1};

// Held shared by ForkGates, exclusively across fork(). Readers first (glibc's default): a gate
// nested on one thread never waits behind the fork it would then hold up.
pthread_rwlock_t g_gate = PTHREAD_RWLOCK_INITIALIZER;
thread_local int t_gate_depth = 0;
bool g_gate_held_for_fork = false;  // written by the forking thread only, under the lock

void before_fork() {
  // A thread that forks from inside a gate would wait for itself; it knows it is not
  // mid-initialisation anywhere else.
  if (t_gate_depth > 0) return;
  ::pthread_rwlock_wrlock(&g_gate);
  g_gate_held_for_fork = true;
}

void after_fork_in_parent() {
  if (!g_gate_held_for_fork) return;
  g_gate_held_for_fork = false;
  ::pthread_rwlock_unlock(&g_gate);
}

void after_fork_in_child() {
  uint32_t next = g_generation.load(std::memory_order_relaxed) + 1;
  g_generation.store(next == 0 ? 1 : next, std::memory_order_relaxed);
  if (!g_gate_held_for_fork) return;
  g_gate_held_for_fork = false;
  // The lock's owner is recorded by thread id, which the child's thread no longer has: a fresh
  // lock, as glibc does with its own locks in a child.
  ::pthread_rwlock_init(&g_gate, nullptr);
}

// At load, before any thread of the program can call into this code. glibc drops the handlers
// when a shared object holding them is unloaded.
[[gnu::constructor]] void register_fork_handlers() {
  ::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

}  // namespace

namespace fork_safe_detail {

uint32_t generation() {
  return g_generation.load(std::memory_order_relaxed);
}

void pause() {
  // Builds take milliseconds (a YAML table, a registry directory): no need to spin hot.
  struct timespec t {
    0, 100 * 1000
  };
  ::nanosleep(&t, nullptr);
}

}  // namespace fork_safe_detail

void ForkGate::enter() {
  if (t_gate_depth++ == 0) ::pthread_rwlock_rdlock(&g_gate);
}

void ForkGate::leave() {
  if (--t_gate_depth == 0) ::pthread_rwlock_unlock(&g_gate);
}

}  // namespace anygpu
