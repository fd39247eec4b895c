// Slurm hostlist expressions (first line) and compressed tasks-per-node lists (second line).
// Parsing never crashes and stays bounded; every expanded name is a clean host name; the
// names, joined by commas, expand to themselves.
#include "cluster/hostlist.h"
#include "cluster/tasks_per_node.h"
#include "fuzz_check.h"
#include "util/strings.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto nl = text.find('\n');
  auto expression = text.substr(0, nl);
  auto hosts = expand_hostlist(expression);
  if (!hosts) {
    FUZZ_CHECK(hosts.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(hosts.error().message.rfind("hostlist \"", 0) == 0);
  } else {
    FUZZ_CHECK(hosts->size() <= 65536);
    for (const auto& h : *hosts) {
      FUZZ_CHECK(!h.empty() && h.size() <= 255);
      FUZZ_CHECK(h.find_first_of("[], \t\n") == std::string::npos);
    }
    auto again = expand_hostlist(join(*hosts, ","));
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == *hosts);
  }
  if (nl != std::string_view::npos) {
    auto counts = parse_tasks_per_node(text.substr(nl + 1));
    if (counts) {
      FUZZ_CHECK(!counts->empty() && counts->size() <= 65536);
      for (int c : *counts) FUZZ_CHECK(c >= 1);
    } else {
      FUZZ_CHECK(counts.error().kind == ErrorKind::bad_input);
    }
  }
  return 0;
}
