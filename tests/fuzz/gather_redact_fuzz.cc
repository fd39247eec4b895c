// gather --redact over any bytes as each kind of file it rewrites (the first byte picks one):
// never crashes; the host name never survives as a word; config space keeps its size and has
// no DSN serial left; the kept kernel log is whole records only, no more than were read; a
// redacted /etc/group is name:x:gid: lines only.
#include <string>

#include "fuzz_check.h"
#include "gather/identifiers.h"
#include "gather/pci_config.h"
#include "gather/redact.h"
#include "health/kmsg.h"
#include "util/strings.h"

using namespace anygpu;
using namespace anygpu::gather;

namespace {

constexpr const char* kPaths[] = {
    "/proc/driver/nvidia/gpus/0000:18:00.0/information",
    "/etc/group",
    "/sys/devices/pci0000:00/0000:05:00.0/unique_id",
    "/sys/devices/virtual/kfd/kfd/topology/nodes/2/properties",
    "/sys/devices/pci0000:00/0000:05:00.0/config",
    "/dev/kmsg",
};

void check_group(std::string_view out) {
  for (auto line : split_lines(out)) {
    auto fields = split(line, ':');
    FUZZ_CHECK(fields.size() == 4 && fields[1] == "x" && fields[3].empty());
    FUZZ_CHECK(parse_uint(fields[2]).has_value());
  }
}

void check_config(std::string_view in, std::string_view out) {
  FUZZ_CHECK(out.size() == in.size());
  for (size_t at : dsn_serial_offsets(out))
    FUZZ_CHECK(out.substr(at, kDsnSerialBytes) == std::string(kDsnSerialBytes, '\0'));
}

void check_kmsg(const Redactor& r, std::string_view out) {
  FUZZ_CHECK(r.log_gpu_records() <= r.log_records());
  auto kept = health::parse_kmsg(out);
  FUZZ_CHECK(kept.malformed == 0);
  FUZZ_CHECK(kept.records.size() == r.log_gpu_records());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > (1 << 20)) return 0;
  size_t kind = data[0] % (sizeof kPaths / sizeof kPaths[0]);
  std::string in(reinterpret_cast<const char*>(data) + 1, size - 1);
  RedactContext c;
  c.hostnames = hostname_forms({"fuzzhost.example.org"});
  c.gpu_bus_ids = {"0000:18:00.0"};
  c.kept_group_names = {"video", "render"};
  Redactor r(c, true);
  std::string path = kPaths[kind];
  auto out = path == "/dev/kmsg" ? r.kernel_log(path, in) : r.file(path, in);
  bool binary = in.find('\0') != std::string::npos;
  if (path.ends_with("/config")) check_config(in, out);
  if (path == "/etc/group") check_group(out);
  if (path == "/dev/kmsg") check_kmsg(r, out);
  if (!binary || path == "/dev/kmsg") {
    size_t names = 0;
    (void)replace_words(out, c.hostnames, "", names);
    FUZZ_CHECK(names == 0);
  }
  Redactor plain(c, false);  // reporting only: the content is never changed
  FUZZ_CHECK((path == "/dev/kmsg" ? plain.kernel_log(path, in) : plain.file(path, in)) == in);
  return 0;
}
