// Reading the driver version back out of a library's file name with the registry's patterns.
#include <gtest/gtest.h>

#include "container/driver_version.h"

namespace anygpu {
namespace {

TEST(DriverVersion, NvidiasPatternGivesTheLiteralAroundTheVersion) {
  const auto* nvidia = Registry::builtin().vendor("nvidia");
  ASSERT_NE(nvidia, nullptr);
  auto shapes = driver_version_shapes(*nvidia);
  ASSERT_EQ(shapes.size(), 1u);
  EXPECT_EQ(shapes[0].before, ".so.");
  EXPECT_EQ(shapes[0].after, "");
  EXPECT_TRUE(driver_version_shapes(*Registry::builtin().vendor("amd")).empty());
}

TEST(DriverVersion, TheVersionAfterTheStem) {
  DriverVersionShape so{".so.", ""};
  EXPECT_EQ(driver_version_in("libcuda.so.560.35.03", "libcuda", so), "560.35.03");
  EXPECT_EQ(driver_version_in("libnvidia-ml.so.550.90.07", "libnvidia-ml", so), "550.90.07");
  DriverVersionShape mid{"-", ".so"};
  EXPECT_EQ(driver_version_in("libfoo-1.2.so", "libfoo", mid), "1.2");
}

TEST(DriverVersion, OtherShapesAndVersionsThatAreNotDottedNumbersAreRefused) {
  DriverVersionShape so{".so.", ""};
  for (const char* name :
       {"libcuda.so.1", "libcuda.so.", "libcuda.so", "libcuda.so.560.35.03.", "libcuda.so..560",
        "libcuda.so.560a.1", "libcudart.so.12.4.127", "libcuda.so.5 60.1", "", "libcuda"})
    EXPECT_FALSE(driver_version_in(name, "libcuda", so)) << name;
  EXPECT_FALSE(is_numeric_dotted_version("1"));
  EXPECT_FALSE(is_numeric_dotted_version(".1"));
  EXPECT_TRUE(is_numeric_dotted_version("1.0"));
}

TEST(DriverVersion, LibraryStemIsTheNameBeforeSo) {
  EXPECT_EQ(library_stem("libnvidia-ml.so.1"), "libnvidia-ml");
  EXPECT_EQ(library_stem("libdcmi.so"), "libdcmi");
  EXPECT_EQ(library_stem("noso"), "noso");
}

}  // namespace
}  // namespace anygpu
