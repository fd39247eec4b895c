// Build-time tool: validates data/vendors.yaml and data/devices.yaml and writes the C++ source
// that embeds them, and with a fourth argument the Python package's table
// (python/anygpu/_registry.py; `make registry-python`). A data error fails the build with
// FILE:LINE:COLUMN.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "host/confined_writer.h"
#include "registry/registry_emit.h"
#include "registry/registry_yaml.h"

namespace {
bool slurp(const char* path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr,
                 "usage: registry_compile VENDORS.yaml DEVICES.yaml OUTPUT.cc [OUTPUT.py]\n");
    return 2;
  }
  std::string vendors, devices;
  for (auto [path, text] : {std::pair{argv[1], &vendors}, std::pair{argv[2], &devices}})
    if (!slurp(path, *text)) {
      std::fprintf(stderr, "%s: cannot read\n", path);
      return 2;
    }
  auto loaded = anygpu::load_registry(vendors, argv[1], devices, argv[2]);
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
    return 2;
  }
  const auto& registry = (*loaded)->registry();
  // The Python table is checked even when not written: a conflict fails the build.
  auto python = anygpu::emit_registry_python(registry);
  if (!python) {
    std::fprintf(stderr, "%s: %s\n", argv[1], python.error().message.c_str());
    return 2;
  }
  auto written = anygpu::write_named_file(argv[3], anygpu::emit_registry_cpp(registry));
  if (written && argc == 5) written = anygpu::write_named_file(argv[4], *python);
  if (!written) {
    std::fprintf(stderr, "%s\n", written.error().message.c_str());
    return 1;
  }
  return 0;
}
