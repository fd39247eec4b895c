// GPU code objects inside a shared library, read as a stream (libtorch_cuda.so is ~1 GiB; it is
// never held whole). NVIDIA: the fat binaries of `.nv_fatbin` (container magic 0xBA55ED50, then
// entries whose header holds kind and sm_version in the clear; payloads are skipped, never
// decompressed). AMD: clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`, entry ids such as
// `hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`) and compressed `CCOB` bundles (V1–V3,
// zlib or zstd, decompressed as far as the inner bundle's header; one that does not decompress
// to a bundle is counted as unread). Layouts: docs/image.md, with the public readers they were
// checked against.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "image/byte_source.h"

namespace anygpu::image {

struct CodeObjects {
  std::vector<int> sass;  // sm numbers of the cubins (90 = sm_90), sorted, unique
  std::vector<int> ptx;   // sm numbers of the PTX (compute_XY), sorted, unique
  // Arch- and family-specific targets ("sm_90a", "sm_100f", "compute_90a"): flag bits 0x100000
  // and 0x200000 of the entry header's u64 at 0x28, as nvcc 13.0 writes them.
  std::vector<std::string> specific;
  std::vector<std::string> gfx;  // AMD target ids, "gfx942:sramecc+:xnack-", sorted, unique
  int unread_bundles = 0;        // compressed bundles whose targets could not be read
  bool empty() const {
    return sass.empty() && ptx.empty() && specific.empty() && gfx.empty() && !unread_bundles;
  }
  // "sm_80", "sm_90", "compute_90", "gfx942:xnack-": what the documents list.
  std::vector<std::string> arch_names() const;
};

// Scans `in` (a shared library's bytes) to its end. Errors only from the stream itself; bytes
// that are no valid container are passed over.
Result<CodeObjects> scan_code_objects(ByteSource& in);
// The same over bytes in memory (tests, fuzzing).
CodeObjects scan_code_objects_in(std::string_view bytes);

// A source over bytes in memory.
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  Result<size_t> read(void* out, size_t n) override;

 private:
  std::string_view bytes_;
};

}  // namespace anygpu::image
