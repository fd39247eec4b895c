// A small, bounds-checked ELF reader for what the dynamic loader looks at: class, byte order,
// machine, and the PT_DYNAMIC entries SONAME, NEEDED, RPATH, RUNPATH and FLAGS_1, with their
// strings taken from the dynamic string table (DT_STRTAB mapped through the PT_LOAD segments,
// as ld.so does; section headers are never trusted). Reads only headers, the dynamic segment,
// the string table and notes, never the whole file, and never more than kElfReadCap bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// Upper bound on the bytes one parse reads (a big libtorch_cuda.so is ~1 GiB; its dynamic
// metadata is a few KiB).
inline constexpr uint64_t kElfReadCap = uint64_t{8} << 20;

struct ElfInfo {
  bool is_64 = false;
  bool big_endian = false;
  uint16_t type = 0;  // ET_DYN = 3, ET_EXEC = 2
  uint16_t machine = 0;
  std::optional<std::string> soname;
  std::vector<std::string> needed;
  std::optional<std::string> rpath;    // DT_RPATH (deprecated; used only without DT_RUNPATH)
  std::optional<std::string> runpath;  // DT_RUNPATH
  uint64_t flags_1 = 0;                // DT_FLAGS_1 (DF_1_NODEFLIB = 0x800)
  std::string build_id;                // NT_GNU_BUILD_ID as hex, empty when absent
  bool has_dynamic = false;
};

// Reads `size` bytes at `offset` into `out`; false when the range is not in the file.
using ElfReadAt = std::function<bool(uint64_t offset, size_t size, void* out)>;

// Parses from a reader over a file of `file_size` bytes. `name` is used in error messages.
Result<ElfInfo> parse_elf(const ElfReadAt& read_at, uint64_t file_size, std::string_view name);
// Parses an in-memory image.
Result<ElfInfo> parse_elf_bytes(std::string_view bytes, std::string_view name);
// Opens a file on this machine and parses it with pread.
Result<ElfInfo> read_elf_file(const std::string& path);

}  // namespace anygpu
