// parse_beat: any bytes give a beat whose words are printable and whose event is one of the
// six, or an error naming the file, line 1 and a column.
#include <string>

#include "fuzz_check.h"
#include "launch/hang_beats.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 14) return 0;
  auto beat = parse_beat(fuzz::as_text(data, size), "rank-0.beat");
  if (!beat) {
    FUZZ_CHECK(beat.error().message.starts_with("rank-0.beat:1:"));
    return 0;
  }
  for (const std::string* w : {&beat->device, &beat->op, &beat->collective, &beat->event}) {
    FUZZ_CHECK(!w->empty() && w->size() <= 128);
    for (char c : *w) FUZZ_CHECK(c > ' ' && c < 0x7f);
  }
  FUZZ_CHECK(beat->time_ns >= 0 && beat->signal <= 64);
  return 0;
}
