// The table of library APIs (src/vendorlib/apis.cc): the rules every row must keep, and the
// registry's libraries as the metrics backends rely on them. That each entry point works is
// proved through the production load path with mock libraries (vendor_libraries_test.cc,
// health_*_test.cc, metrics_*_test.cc).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "registry/registry.h"
#include "vendorlib/apis.h"

namespace anygpu {
namespace {

TEST(VendorlibApis, OneRowPerApi) {
  std::set<std::string_view> seen;
  for (const auto& row : library_apis()) {
    EXPECT_FALSE(row.api.empty());
    EXPECT_TRUE(seen.insert(row.api).second) << row.api << " has two rows";
    EXPECT_EQ(find_library_api(row.api), &row);
  }
}

// A library is called only after its init symbol proved it is what its file name claims.
TEST(VendorlibApis, EveryCalledLibraryHasAnInitSymbol) {
  for (const auto& row : library_apis()) {
    if (row.probe || row.health || row.sampler) {
      EXPECT_FALSE(row.init_symbol.empty()) << row.api << " is called without an identity check";
    }
  }
}

// How values meet the kernel's only means something for a library that is sampled.
TEST(VendorlibApis, MergeFieldsOnlyWithASampler) {
  for (const auto& row : library_apis()) {
    if (!row.sampler) {
      EXPECT_FALSE(row.adds_to_kernel) << row.api;
      EXPECT_EQ(row.merge, MergeRule::library_wins) << row.api;
    }
  }
}

// Iluvatar's libixml exports NVML's names and types: it gets every one of NVML's calls.
TEST(VendorlibApis, IxmlSpeaksNvml) {
  const auto* nvml = find_library_api("nvml");
  const auto* ixml = find_library_api("ixml");
  ASSERT_TRUE(nvml && ixml);
  EXPECT_EQ(ixml->init_symbol, nvml->init_symbol);
  EXPECT_EQ(ixml->probe, nvml->probe);
  EXPECT_EQ(ixml->health, nvml->health);
  EXPECT_EQ(ixml->sampler, nvml->sampler);
  EXPECT_EQ(ixml->merge, nvml->merge);
  EXPECT_EQ(ixml->adds_to_kernel, nvml->adds_to_kernel);
}

TEST(VendorlibApis, HealthReadersAreTheWorkersHealthMode) {
  std::set<std::string> answering;
  for (const auto& row : library_apis()) {
    if (answers_health(row.api)) answering.insert(std::string(row.api));
  }
  EXPECT_EQ(answering, (std::set<std::string>{"dcmi", "ixml", "level-zero", "nvml"}));
  EXPECT_FALSE(answers_health("acme-ml"));  // no row: located and reported, never called
  EXPECT_EQ(find_library_api("acme-ml"), nullptr);
}

// make_backends samples a vendor through its first library with a sampler: a second one
// would be silently ignored, so the registry must not list two.
TEST(VendorlibApis, NoVendorListsTwoSampledLibraries) {
  for (const auto& vendor : Registry::builtin().vendors()) {
    int sampled = 0;
    for (const auto& lib : vendor.libraries) {
      if (const auto* row = find_library_api(lib.api); row && row->sampler) ++sampled;
    }
    EXPECT_LE(sampled, 1) << vendor.id;
  }
}

}  // namespace
}  // namespace anygpu
