// The code-object scanner image check runs over every library of an image, run over files on
// disk: one JSON object per file with its cubin, PTX, arch-specific and gfx targets and the
// seconds the scan took. For tests that compare it with what a real build says about itself
// (real_wheel_test.py: PyTorch's CUDA wheel against torch.cuda.get_arch_list()).
//
// Usage: image_code_objects_dump FILE...
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "image/byte_source.h"
#include "image/code_objects.h"

using namespace anygpu;
using namespace anygpu::image;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    auto file = OpenFile::open(argv[i]);
    if (!file) {
      std::fprintf(stderr, "%s\n", file.error().message.c_str());
      return 2;
    }
    FileRange whole(*file, 0, (*file)->size());
    auto start = std::chrono::steady_clock::now();
    auto objects = scan_code_objects(whole);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (!objects) {
      std::fprintf(stderr, "%s: %s\n", argv[i], objects.error().message.c_str());
      return 2;
    }
    nlohmann::ordered_json j;
    j["file"] = argv[i];
    j["bytes"] = (*file)->size();
    j["sass"] = objects->sass;
    j["ptx"] = objects->ptx;
    j["specific"] = objects->specific;
    j["gfx"] = objects->gfx;
    j["archs"] = objects->arch_names();
    j["seconds"] = took.count();
    std::printf("%s\n", j.dump().c_str());
  }
  return 0;
}
