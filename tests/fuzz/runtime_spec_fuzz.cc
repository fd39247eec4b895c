// runtime-spec.yaml: any input is a contract or a located bad_input, never a crash; a parsed
// contract evaluates against an empty host without crashing.
#include <nlohmann/json.hpp>

#include "contract/check.h"
#include "contract/evaluate.h"
#include "contract/spec.h"
#include "fuzz_check.h"
#include "render/json_text.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto spec = parse_contract(text, "fuzz.yaml");
  if (!spec) {
    FUZZ_CHECK(spec.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(spec.error().message.rfind("fuzz.yaml", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(spec->order.size() <= 7);
  Inventory none;
  PythonFacts py;
  py.error = "not read";
  auto v = evaluate_contract(*spec, none, py);
  FUZZ_CHECK(v.checks.size() == spec->order.size() + spec->dependencies.size() + [&] {
    size_t n = 0;
    for (const auto& d : spec->dependencies) n += d.vendor_agnostic_wheel + d.full_distribution;
    return n;
  }());
  for (const auto& c : v.checks) FUZZ_CHECK(!c.name.empty());
  // The JSON names every status with one of the four documented words, and `passed` agrees.
  auto doc = nlohmann::json::parse(dump_json(render_check_json(v)));
  bool failed = false;
  for (const auto& c : doc["checks"]) {
    auto status = c["status"].get<std::string>();
    FUZZ_CHECK(status == "pass" || status == "fail" || status == "warn" || status == "skip");
    failed = failed || status == "fail";
  }
  FUZZ_CHECK(doc["passed"].get<bool>() == !failed);
  return 0;
}
