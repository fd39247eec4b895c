// compare_versions, cuda_version_for_driver, version_from_library_file and version_tokens_after.
// The input is split at newlines into up to three strings.
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "probe/runtimes.h"
#include "probe/sysfs_parse.h"
#include "util/version_tokens.h"

using namespace anygpu;

namespace {
constexpr std::string_view kCudaVersions[] = {"13.0", "12.9", "12.8", "12.6", "12.5", "12.4",
                                              "12.3", "12.2", "12.1", "12.0", "11.8", "11.7",
                                              "11.6", "11.5", "11.4", "11.0"};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  auto text = fuzz::as_text(data, size);
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (parts.size() < 2) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    parts.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  parts.push_back(text.substr(start));
  while (parts.size() < 3) parts.push_back(parts.back());
  auto a = parts[0], b = parts[1], c = parts[2];

  // An order: reflexive, antisymmetric, transitive; defined or not together.
  auto ab = compare_versions(a, b), ba = compare_versions(b, a);
  FUZZ_CHECK(ab.has_value() == ba.has_value());
  if (ab) {
    FUZZ_CHECK(*ab >= -1 && *ab <= 1 && *ab == -*ba);
  }
  // Unparsable components are compared only when reached, so `a` may not compare with itself.
  if (auto aa = compare_versions(a, a)) FUZZ_CHECK(*aa == 0);
  auto bc = compare_versions(b, c), ac = compare_versions(a, c);
  if (ab && bc && ac && *ab <= 0 && *bc <= 0) FUZZ_CHECK(*ac <= 0);
  if (ab && bc && ac && *ab >= 0 && *bc >= 0) FUZZ_CHECK(*ac >= 0);

  // The CUDA version is one of the table's, and a newer driver never supports less.
  for (auto d : {a, b}) {
    if (auto cuda = cuda_version_for_driver(d)) {
      bool known = false;
      for (auto k : kCudaVersions) known |= (*cuda == k);
      FUZZ_CHECK(known);
    }
  }
  if (ab && *ab <= 0) {
    auto ca = cuda_version_for_driver(a), cb = cuda_version_for_driver(b);
    if (ca && cb) FUZZ_CHECK(compare_versions(*ca, *cb).value_or(1) <= 0);
  }

  // "<stem>.so.<digits and dots>": a suffix of the file name, no empty ends.
  if (auto v = version_from_library_file(a, b)) {
    FUZZ_CHECK(!v->empty() && v->front() != '.' && v->back() != '.');
    for (char ch : *v) FUZZ_CHECK((ch >= '0' && ch <= '9') || ch == '.');
    FUZZ_CHECK(a.size() > v->size() && a.substr(a.size() - v->size()) == *v);
    FUZZ_CHECK(b.find(".so") != std::string_view::npos);
  }
  // The driver version in /proc/driver/nvidia/version: dotted numbers only, each a token of
  // the marker's line after the marker.
  for (auto marker : {std::string_view("Kernel Module"), b}) {
    if (marker.empty()) continue;
    for (const auto& t : version_tokens_after(text, marker)) {
      FUZZ_CHECK(!t.empty() && t.front() != '.' && t.back() != '.');
      FUZZ_CHECK(t.find('.') != std::string::npos && t.find("..") == std::string::npos);
      for (char ch : t) FUZZ_CHECK((ch >= '0' && ch <= '9') || ch == '.');
      FUZZ_CHECK(text.find(t) != std::string_view::npos);
    }
  }
  return 0;
}
