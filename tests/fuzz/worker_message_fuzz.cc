// The worker message format, read by the parent from a process that hosts a vendor library
// (which may write anything to any descriptor). Parsing never crashes; what parses re-encodes
// to a stream that parses to the same facts; the request parser accepts only complete requests.
#include <string>

#include "fuzz_check.h"
#include "probe/libs/probe_protocol.h"
#include "worker/message.h"

using namespace anygpu::worker;

namespace {

void check_reply(std::string_view text) {
  auto reply = decode_probe_reply(text);
  if (reply.error) FUZZ_CHECK(!reply.error->empty());
  // Every complete block re-encodes to a block that decodes to the same report.
  std::string again = Writer().header().take();
  for (const auto& lib : reply.libraries) {
    const auto& rep = lib.result.report;
    FUZZ_CHECK(!rep.vendor.empty() && !rep.api.empty());
    FUZZ_CHECK(!is_worker_verdict(rep.status));  // a worker never reports the parent's verdict
    again += encode_begin(rep.vendor, rep.api);
    again += encode_library(lib.result, lib.output);
  }
  again += kEndLine;
  auto round = decode_probe_reply(again);
  FUZZ_CHECK(!round.error);
  FUZZ_CHECK(round.complete);
  FUZZ_CHECK(round.libraries.size() == reply.libraries.size());
  for (size_t i = 0; i < reply.libraries.size(); ++i) {
    const auto& a = reply.libraries[i].result;
    const auto& b = round.libraries[i].result;
    FUZZ_CHECK(a.report.vendor == b.report.vendor && a.report.status == b.report.status);
    FUZZ_CHECK(a.report.path == b.report.path && a.devices.size() == b.devices.size());
    for (size_t d = 0; d < a.devices.size(); ++d) {
      FUZZ_CHECK(a.devices[d].address == b.devices[d].address);
      FUZZ_CHECK(a.devices[d].name == b.devices[d].name);
      FUZZ_CHECK(a.devices[d].memory_total_bytes == b.devices[d].memory_total_bytes);
      const auto &ha = a.devices[d].hccs, &hb = b.devices[d].hccs;
      FUZZ_CHECK(ha.has_value() == hb.has_value());
      if (ha && hb) FUZZ_CHECK(ha->unknown == hb->unknown && ha->peers == hb->peers);
      const auto &xa = a.devices[d].xelink, &xb = b.devices[d].xelink;
      FUZZ_CHECK(xa.has_value() == xb.has_value());
      if (xa && xb) {
        FUZZ_CHECK(xa->unknown == xb->unknown && xa->peers.size() == xb->peers.size());
        for (size_t k = 0; k < xa->peers.size() && k < xb->peers.size(); ++k)
          FUZZ_CHECK(xa->peers[k].address == xb->peers[k].address &&
                     xa->peers[k].edges == xb->peers[k].edges);
      }
      const auto &va = a.devices[d].vnpus, &vb = b.devices[d].vnpus;
      FUZZ_CHECK(va.size() == vb.size());
      for (size_t k = 0; k < va.size() && k < vb.size(); ++k)
        FUZZ_CHECK(va[k].vdev_id == vb[k].vdev_id && va[k].template_name == vb[k].template_name &&
                   va[k].ai_cores == vb[k].ai_cores &&
                   va[k].memory_total_bytes == vb[k].memory_total_bytes);
      const auto &la = a.devices[d].nvlink, &lb = b.devices[d].nvlink;
      FUZZ_CHECK(la.has_value() == lb.has_value());
      if (!la || !lb) continue;
      FUZZ_CHECK(la->unknown == lb->unknown && la->active.size() == lb->active.size());
      for (size_t k = 0; k < la->active.size() && k < lb->active.size(); ++k) {
        const auto &x = la->active[k], &y = lb->active[k];
        FUZZ_CHECK(x.link == y.link && x.domain == y.domain && x.bus == y.bus &&
                   x.device == y.device && x.peer == y.peer);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = anygpu::fuzz::as_text(data, size);
  // Fields: decode(encode(x)) == x for any bytes, and an encoded field has no space or LF.
  auto enc = encode_field(text);
  FUZZ_CHECK(enc.find_first_of(" \n") == std::string::npos);
  auto dec = decode_field(enc);
  FUZZ_CHECK(text.empty() ? !dec.ok() : (dec.ok() && *dec == text));

  auto records = parse_records(text);
  for (const auto& r : records.records)
    for (const auto& f : r.fields) FUZZ_CHECK(!f.empty());
  check_reply(text);
  // The same bytes after a valid header, so the fuzzer need not find the header first.
  check_reply(Writer().header().take() + std::string(text));
  if (auto req = decode_probe_request(text)) {
    auto again = decode_probe_request(encode_probe_request(*req));
    FUZZ_CHECK(again.ok() && again->root == req->root &&
               again->libraries.size() == req->libraries.size());
  }
  return 0;
}
