#include "host/deadline.h"

#include <atomic>

namespace anygpu {

namespace {
std::atomic<int> g_abandoned{0};
}

int abandoned_workers() {
  return g_abandoned.load();
}
void note_abandoned_worker() {
  g_abandoned.fetch_add(1);
}

}  // namespace anygpu
