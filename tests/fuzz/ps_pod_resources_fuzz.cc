// The kubelet's pod-resources reply as `anygpu ps` reads it: HTTP/2 frames, HPACK header
// blocks and the protobuf ListPodResourcesResponse never crash, and what they yield is bounded
// and well-formed (pod names and namespaces are Kubernetes names).
#include <cctype>

#include "fuzz_check.h"
#include "ps/http2.h"
#include "ps/pod_resources.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  if (auto pods = ps::parse_list_response(text)) {
    for (const auto& p : *pods) {
      FUZZ_CHECK(!p.name.empty() && p.name.size() <= 253);
      FUZZ_CHECK(!p.namespace_.empty() && p.namespace_.size() <= 253);
      for (char c : p.name + p.namespace_)
        FUZZ_CHECK(std::islower(static_cast<unsigned char>(c)) ||
                   std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.');
    }
  }
  // The same bytes as a header block (through a small table, so eviction runs) and frames.
  ps::http2::HpackDecoder hpack(256, 4096);
  if (auto h = hpack.decode(text)) {
    size_t bytes = 0;
    for (const auto& [n, v] : *h) bytes += n.size() + v.size() + 32;
    FUZZ_CHECK(bytes <= 4096);
  }
  (void)ps::http2::huffman_decode(text);
  std::string buffer(text);
  for (;;) {
    auto f = ps::http2::take_frame(buffer);
    if (!f || !*f) break;
    FUZZ_CHECK((*f)->payload.size() <= ps::http2::kDefaultMaxFrameBytes);
    if (auto c = ps::http2::frame_content(**f)) FUZZ_CHECK(c->size() <= (*f)->payload.size());
  }
  return 0;
}
