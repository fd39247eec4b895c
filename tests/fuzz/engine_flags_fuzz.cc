// parse_engine_flags / check_engine_args: arguments split at NUL bytes. Any bytes give either
// an error that names --engine-arg, or flags of which none grants more than the selection.
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "launch/engine_flags.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1 << 16) return 0;
  std::vector<std::string> args(1);
  for (char c : fuzz::as_text(data, size)) {
    if (c == '\0')
      args.emplace_back();
    else
      args.back() += c;
  }
  const std::vector<std::string> steering = {"NVIDIA_VISIBLE_DEVICES"};
  auto refused = check_engine_args(args, steering);
  auto flags = parse_engine_flags(args);
  if (refused) {
    FUZZ_CHECK(refused->message.starts_with("--engine-arg"));
    return 0;
  }
  FUZZ_CHECK(flags);
  for (const auto& f : *flags) {
    FUZZ_CHECK(f.name != "user" && f.name != "privileged" && f.name != "device");
    if (f.name == "env")
      FUZZ_CHECK(f.value->substr(0, f.value->find('=')) != "NVIDIA_VISIBLE_DEVICES");
  }
  return 0;
}
