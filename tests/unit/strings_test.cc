#include "util/strings.h"

#include <gtest/gtest.h>

#include "util/suggest.h"

namespace anygpu {

TEST(Strings, TrimAndLines) {
  EXPECT_EQ(trim("  a b \n"), "a b");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(first_line("x \ny\n"), "x");
  EXPECT_EQ(split_lines("a\r\nb\n").size(), 2u);
  EXPECT_EQ(split("a,,b", ',').size(), 3u);
}

TEST(Strings, StrictNumbers) {
  EXPECT_EQ(parse_int("-1"), -1);
  EXPECT_EQ(parse_int(" 42\n"), 42);
  EXPECT_FALSE(parse_int("4 2"));
  EXPECT_FALSE(parse_int("99999999999999999999999"));
  EXPECT_FALSE(parse_uint("-3"));
  EXPECT_EQ(parse_hex("0x10de"), 0x10deu);
  EXPECT_EQ(parse_hex("10DE"), 0x10deu);
  EXPECT_FALSE(parse_hex("0x"));
  EXPECT_FALSE(parse_hex("0xzz"));
  EXPECT_EQ(parse_double("32.0"), 32.0);
  EXPECT_FALSE(parse_double("1e999"));
  EXPECT_FALSE(parse_double("nan?"));
}

TEST(Strings, HexAndPlaceholders) {
  EXPECT_EQ(hex(0x10de, 4), "0x10de");
  EXPECT_EQ(hex(0x30200, 6), "0x030200");
  EXPECT_EQ(replace_placeholder("/dev/nvidia{minor}", "minor", "3"), "/dev/nvidia3");
  EXPECT_EQ(replace_placeholder("{i}-{i}", "i", "{i}"), "{i}-{i}");  // no re-expansion
}

TEST(Strings, VersionExtraction) {
  EXPECT_EQ(token_after("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31",
                        "Kernel Module"),
            "550.90.07");
  EXPECT_FALSE(token_after("Kernel Module", "Kernel Module"));
  EXPECT_EQ(key_value("a=1\nVersion=24.1.rc2\n", "Version"), "24.1.rc2");
  EXPECT_EQ(key_value("PRETTY_NAME=\"Ubuntu 22.04\"", "PRETTY_NAME"), "Ubuntu 22.04");
  EXPECT_FALSE(key_value("Version=", "Version"));
}

TEST(Suggest, DidYouMean) {
  std::string_view keys[] = {"drivers", "device_nodes", "libraries"};
  EXPECT_EQ(closest_match("drviers", keys), "drivers");
  EXPECT_EQ(closest_match("completely_else", keys), "");
  EXPECT_EQ(did_you_mean("libraires", keys), " (did you mean 'libraries'?)");
}

}  // namespace anygpu
