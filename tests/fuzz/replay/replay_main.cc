// Replays a fuzz target without libFuzzer: every file of the corpus directories given on the
// command line, then a few generated edge cases, through LLVMFuzzerTestOneInput. Built in
// every ordinary build (g++ included) and registered with ctest, so the seeds and every
// crash reproducer added to a corpus keep passing.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int run(const std::string& what, const std::string& input) {
  // A copy in its own allocation, so ASan sees reads past the end.
  std::vector<uint8_t> buf(input.begin(), input.end());
  int rc = LLVMFuzzerTestOneInput(buf.empty() ? nullptr : buf.data(), buf.size());
  if (rc != 0) std::fprintf(stderr, "%s: LLVMFuzzerTestOneInput returned %d\n", what.c_str(), rc);
  return rc == 0 ? 0 : 1;
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (auto* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    std::string p = dir + "/" + n;
    if (is_dir(p)) {
      auto sub = files_under(p);
      out.insert(out.end(), sub.begin(), sub.end());
    } else {
      out.push_back(p);
    }
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

// Overlong, truncated and surrogate sequences among otherwise plausible text.
constexpr char kInvalidUtf8[] = "0-3,\xc3\x28 \xe2\x82 \xf0\x28\x8c\xbc\n\xed\xa0\x80\xc0\xaf";

int main(int argc, char** argv) {
  int failures = 0, inputs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::string> files =
        is_dir(argv[i]) ? files_under(argv[i]) : std::vector<std::string>{argv[i]};
    if (files.empty()) {
      std::fprintf(stderr, "%s: no corpus files\n", argv[i]);
      return 2;
    }
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "%s: cannot read\n", f.c_str());
        return 2;
      }
      std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      failures += run(f, data);
      ++inputs;
    }
  }

  const std::pair<const char*, std::string> edge_cases[] = {
      {"empty input", std::string()},
      {"1 MiB of 'A'", std::string(1 << 20, 'A')},
      {"4096 nested '['", std::string(4096, '[')},
      {"invalid UTF-8", std::string(kInvalidUtf8, sizeof kInvalidUtf8 - 1)},
      {"lone 0xff", std::string("\xff", 1)},
  };
  for (const auto& [what, data] : edge_cases) {
    failures += run(what, data);
    ++inputs;
  }
  std::printf("%d inputs, %d failures\n", inputs, failures);
  return failures == 0 ? 0 : 1;
}
