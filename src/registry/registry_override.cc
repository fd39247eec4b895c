#include "registry/registry_override.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "registry/registry_yaml.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu {

namespace {

constexpr size_t kMaxRegistryFileBytes = 16u << 20;

struct Override {
  std::unique_ptr<LoadedRegistry> loaded;  // owns what `registry` points into
  std::optional<Registry> registry;
  std::optional<Error> error;
};

Override read_override() {
  Override o;
  const char* dir = std::getenv(kRegistryEnv);
  if (!dir || !*dir) return o;
  std::string base = dir;
  if (base.back() != '/') base += '/';
  auto vendors = read_regular_file(base + "vendors.yaml", kMaxRegistryFileBytes,
                                   cat({kRegistryEnv, " vendors file"}));
  auto devices = read_regular_file(base + "devices.yaml", kMaxRegistryFileBytes,
                                   cat({kRegistryEnv, " devices file"}));
  if (!vendors || !devices) {
    o.error = !vendors ? vendors.error() : devices.error();
    return o;
  }
  auto loaded = load_registry(*vendors, base + "vendors.yaml", *devices, base + "devices.yaml");
  if (!loaded) {
    o.error = bad_input(loaded.error().message);
    return o;
  }
  o.registry.emplace((*loaded)->registry());
  o.loaded = std::move(*loaded);
  return o;
}

const Override& current() {
  static const Override o = read_override();
  return o;
}

}  // namespace

Result<bool> prepare_registry() {
  const auto& o = current();
  if (o.error) return *o.error;
  return o.registry.has_value();
}

const Registry& Registry::builtin() {
  const auto& o = current();
  if (o.registry) return *o.registry;
  if (o.error) {
    // Reached only by a caller that did not ask prepare_registry() first: running on the
    // compiled-in registry instead of the one named would be a silent fallback.
    std::fprintf(stderr, "anygpu: %s\n", o.error->message.c_str());
    std::_Exit(2);
  }
  return compiled_registry();
}

}  // namespace anygpu
