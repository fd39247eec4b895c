// The cuda-compat libraries of an image (`cuda-compat-<maj>-<min>`: a libcuda.so of a newer
// driver in /usr/local/cuda[-X.Y]/compat/) and the ELF note that says where forward
// compatibility works: section `.note.cuda.fwd_compatibility`, one note (u32 name size, u32
// description size, u32 type; name "NVIDIA Corporation"; description JSON such as
// {"Format": 1, "CUDA Version": "12.9", "Driver": [535, 550, 570, 575], "Device": [...]}), as
// nvidia-container-toolkit's cmd/nvidia-cdi-hook/cudacompat/cuda-elf-header.go reads it.
// The library is read from memory; nothing here judges (src/imagefit/ does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu::image {

// A compat libcuda.so is read whole (its section headers sit at its end); larger ones are
// reported unread. libcuda.so.590 is about 100 MiB.
inline constexpr uint64_t kMaxCompatLibraryBytes = uint64_t{512} << 20;

struct CompatNote {
  int format = 0;
  std::string cuda_version;  // "12.9": the CUDA the compat driver provides
  std::vector<int> drivers;  // host driver branches it admits (535, 550, …)
  std::vector<int> devices;  // recorded as given; what the numbers mean is not documented
};

// What one compat library in the image says.
struct CudaCompat {
  std::string driver_version;         // "575.57.08", from the file name libcuda.so.575.57.08
  std::optional<CompatNote> note;     // absent: the library carries none (older packages)
  std::optional<std::string> unread;  // why the note could not be read (malformed, too large)
};

// "usr/local/cuda-12.9/compat/libcuda.so.575.57.08" and the like (a regular libcuda.so.X.Y…
// file in a directory named compat or cuda-compat).
bool is_compat_library(std::string_view path);
// "575.57.08" of such a path; nullopt when the name carries no dotted version.
std::optional<std::string> compat_driver_version(std::string_view path);

// The note of the ELF file `elf` (whole, in memory). nullopt: a valid ELF without the section
// or whose note is not NVIDIA's. Errors (bad_input, naming what is wrong): not ELF, headers or
// the section outside the file, a malformed note, a description that is not the JSON above.
Result<std::optional<CompatNote>> read_compat_note(std::string_view elf);

}  // namespace anygpu::image
