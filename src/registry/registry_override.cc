#include "registry/registry_override.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "registry/registry_yaml.h"
#include "util/file_trust.h"
#include "util/fork_safety.h"
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
  // The registry names the libraries the worker loads (as root, for a root caller): refused
  // when anyone but root or this user can change it, or a directory above it (util/file_trust.h).
  auto vendors = read_trusted_file(base + "vendors.yaml", kMaxRegistryFileBytes,
                                   cat({kRegistryEnv, " vendors file"}));
  auto devices = read_trusted_file(base + "devices.yaml", kMaxRegistryFileBytes,
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

// Read on the first use, not at load: a program may set the variable before its first call.
// Not a function-local static: the C ABI's callers fork (util/fork_safety.h).
constinit ForkSafeLazy<Override> g_override;

const Override& current() {
  return g_override.get(read_override);
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
