// The health worker's reply (NVML, DCMI and Level Zero facts per device): never crash, an error
// names a line, a decoded alarm level is one DCMI defines (0-3), a memory health one of Level
// Zero's (1-4), and every complete device block re-encodes to a block that decodes to the same
// facts.
#include <string>

#include "fuzz_check.h"
#include "health/health_protocol.h"
#include "worker/message.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto reply = worker::decode_health_reply(text);
  if (reply.error) FUZZ_CHECK(!reply.error->empty());
  for (const auto& [bus, facts] : reply.devices) {
    FUZZ_CHECK(!facts.alarm || *facts.alarm <= 3);
    FUZZ_CHECK(!facts.memory_health || (*facts.memory_health >= 1 && *facts.memory_health <= 4));
    std::string again = worker::Writer().header().take() +
                        worker::encode_health_status("nvidia", "nvml", std::nullopt) +
                        worker::encode_health_device(bus, facts) + "end\n";
    auto back = worker::decode_health_reply(again);
    FUZZ_CHECK(!back.error && back.complete && back.devices.size() == 1);
    FUZZ_CHECK(worker::encode_health_device(back.devices[0].first, back.devices[0].second) ==
               worker::encode_health_device(bus, facts));
  }
  return 0;
}
