// The image facts cache's strict reader over any bytes as an entry: it ends, a refusal has a
// message, what it accepts keeps the reader's own bounds (member paths, layer indexes, kept
// text) and writes back to an entry that reads the same, and a read is deterministic.
#include "fuzz_check.h"
#include "image/facts_cache.h"
#include "util/strings.h"
#include "util/version.h"

using namespace anygpu;
using namespace anygpu::image;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  const std::string id = "sha256:" + std::string(64, 'a');
  auto f = facts_from_json(text, id);
  auto again = facts_from_json(text, id);
  FUZZ_CHECK(f.ok() == again.ok());
  if (!f) {
    FUZZ_CHECK(!f.error().message.empty() && f.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(f.error().message == again.error().message);
    return 0;
  }
  FUZZ_CHECK(f->id == id);
  size_t total = 0;
  for (const auto& [path, file] : f->files) {
    FUZZ_CHECK(!path.empty() && path.front() != '/');
    for (auto part : split(path, '/')) FUZZ_CHECK(!part.empty() && part != "." && part != "..");
    FUZZ_CHECK(file.layer < f->layers.size());
    FUZZ_CHECK(file.text.size() <= kMaxKeptText);
    total += file.text.size();
    if (file.compat && file.compat->note)
      FUZZ_CHECK(is_dotted_version(file.compat->note->cuda_version));
  }
  FUZZ_CHECK(total <= kMaxKeptTotal);
  auto back = facts_from_json(facts_to_json(*f), id);
  FUZZ_CHECK(back.ok() && back->files.size() == f->files.size() && back->env == f->env);
  return 0;
}
