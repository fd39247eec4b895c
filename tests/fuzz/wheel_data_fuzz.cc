// The wheel table (data/wheels.yaml or --data FILE): parsing never crashes; errors are
// bad_input with a location; a parsed table is internally consistent and a choice made from
// it on a host without accelerators is the CPU build.
#include "fuzz_check.h"
#include "model/inventory.h"
#include "registry/wheel_data.h"
#include "wheel/choose.h"

using namespace anygpu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = fuzz::as_text(data, size);
  auto d = parse_wheel_data(text, "fuzz.yaml");
  if (!d) {
    FUZZ_CHECK(d.error().kind == ErrorKind::bad_input);
    FUZZ_CHECK(d.error().message.rfind("fuzz.yaml", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(d->index_url.find("{variant}") != std::string::npos);
  for (const auto& p : d->packages)
    for (const auto& r : p.releases) {
      FUZZ_CHECK(p.release(r.latest) == &r);
      for (const auto& v : r.variants) {
        FUZZ_CHECK(v.kind == "cuda" || v.kind == "rocm" || v.kind == "xpu" || v.kind == "cpu");
        if (v.kind == "cuda")
          FUZZ_CHECK(d->family_driver_min(v.cuda).has_value() && !v.arches.empty());
        if (v.kind == "rocm") FUZZ_CHECK(!v.gfx.empty());
      }
    }
  // Every decision path on a host with one GPU of each kind runs without crashing.
  Inventory gpus;
  for (const char* vendor : {"nvidia", "amd", "intel", "ascend"}) {
    Device dev;
    dev.vendor = vendor;
    dev.arch = std::string(vendor) == "nvidia" ? "sm_120" : "gfx942";
    dev.driver = DriverInfo{"drv", std::string("550.90.07")};
    gpus.devices.push_back(dev);
  }
  gpus.runtimes.push_back({"amd", "rocm", "6.2.4", "fuzz"});
  gpus.runtimes.push_back({"ascend", "cann", "8.0.RC2", "fuzz"});
  for (const auto& p : d->packages)
    for (const char* vendor : {"nvidia", "amd", "intel", "ascend"}) {
      WheelRequest req;
      req.package = p.name;
      req.vendor = vendor;
      auto c = choose_wheel(*d, gpus, req);
      FUZZ_CHECK(c.ok() || p.releases.empty());
    }
  Inventory none;
  for (const auto& p : d->packages) {
    WheelRequest req;
    req.package = p.name;
    auto c = choose_wheel(*d, none, req);
    if (p.releases.empty()) continue;
    FUZZ_CHECK(c.ok());
    FUZZ_CHECK(c->vendor == "none");
    FUZZ_CHECK(c->variant == "cpu");
  }
  return 0;
}
