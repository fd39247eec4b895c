// How the crashing mocks die: a real invalid memory access with the default SIGSEGV action,
// as in a production anygpu binary (a sanitizer build would otherwise catch the fault and exit
// with its own code, which is not what a user's process does).
#pragma once

#include <signal.h>

namespace mock_crash {

[[noreturn]] inline void segv() {
  ::signal(SIGSEGV, SIG_DFL);
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  ::raise(SIGSEGV);  // never reached on Linux; keeps the compiler honest
  for (;;) {
  }
}

}  // namespace mock_crash
