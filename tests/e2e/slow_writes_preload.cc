// Test-only LD_PRELOAD for the kill -9 tests of every writer: pauses before fsync(2),
// and renameat(2), so that a kill at a random moment lands inside a write (between
// a temporary's creation and its rename) instead of almost always before or after it. The
// production binary runs unchanged; only these libc calls take longer.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

namespace {

void pause_a_little() {
  static const long us = [] {
    const char* v = std::getenv("ANYGPU_TEST_SLOW_WRITES_US");
    return v ? std::atol(v) : 20000L;
  }();
  timespec ts{us / 1000000, (us % 1000000) * 1000};
  ::nanosleep(&ts, nullptr);
}

template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" int fsync(int fd) {
  static auto real = next<int (*)(int)>("fsync");
  pause_a_little();
  return real(fd);
}

extern "C" int renameat(int olddir, const char* oldpath, int newdir, const char* newpath) {
  static auto real = next<int (*)(int, const char*, int, const char*)>("renameat");
  pause_a_little();
  return real(olddir, oldpath, newdir, newpath);
}
