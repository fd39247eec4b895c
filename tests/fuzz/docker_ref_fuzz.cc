// docker_familiar: any text gives no reference, or a name and a key that starts with it, with
// no blank or control byte, and a tag or digest after it.
#include <string>

#include "fuzz_check.h"
#include "image/docker_store.h"

using namespace anygpu::image;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 1024) return 0;
  auto r = docker_familiar(std::string(anygpu::fuzz::as_text(data, size)));
  if (!r) return 0;
  FUZZ_CHECK(!r->name.empty() && r->key.starts_with(r->name));
  FUZZ_CHECK(r->key.size() > r->name.size() + 1);
  FUZZ_CHECK(r->key[r->name.size()] == ':' || r->key[r->name.size()] == '@');
  for (char c : r->key) FUZZ_CHECK(c > ' ' && c < 0x7f);
  return 0;
}
