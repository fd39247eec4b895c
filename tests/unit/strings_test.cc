#include "util/strings.h"
#include "util/version_tokens.h"

#include <gtest/gtest.h>

#include "util/suggest.h"
#include "util/terminal_text.h"

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

TEST(VersionTokens, NvidiaDriverLines) {
  using V = std::vector<std::string>;
  // Line formats of /proc/driver/nvidia/version (printed by kernel-open/nvidia/nv-procfs.c,
  // NVIDIA/open-gpu-kernel-modules@1739a20efc4acb55fd1dc53dcc66057b70c2613c: "NVRM version: %s").
  EXPECT_EQ(
      version_tokens_after("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31",
                           "Kernel Module"),
      V{"550.90.07"});
  EXPECT_EQ(version_tokens_after("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                 "560.35.03  Release Build  (dvs-builder@U16-I3-B03-4-3)  Fri Aug "
                                 "16 21:42:42 UTC 2024\nGCC version:  gcc version 12.2.0",
                                 "Kernel Module"),
            V{"560.35.03"});
  EXPECT_EQ(version_tokens_after(
                "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.173.02  Release",
                "Kernel Module"),
            V{"580.173.02"});
  EXPECT_TRUE(version_tokens_after("Kernel Module", "Kernel Module").empty());
  EXPECT_TRUE(
      version_tokens_after("Kernel Module for x86_64 .1 1. 1..2 v1.2", "Kernel Module").empty());
  EXPECT_EQ(version_tokens_after("Kernel Module 1.2 3.4", "Kernel Module"), (V{"1.2", "3.4"}));
}

TEST(Suggest, DidYouMean) {
  std::string_view keys[] = {"drivers", "device_nodes", "libraries"};
  EXPECT_EQ(closest_match("drviers", keys), "drivers");
  EXPECT_EQ(closest_match("completely_else", keys), "");
  EXPECT_EQ(did_you_mean("libraires", keys), " (did you mean 'libraries'?)");
}

TEST(Strings, EnvNamesAreShellIdentifiers) {
  for (const char* ok : {"A", "_", "CUDA_VISIBLE_DEVICES", "a1", "_9"})
    EXPECT_TRUE(is_env_name(ok));
  for (const char* bad : {"", "9A", "A=B", "A B", "X$(id)", "A;B", "A-B", "`id`", "\xc3\xa9"})
    EXPECT_FALSE(is_env_name(bad)) << bad;
}

TEST(Strings, TerminalTextKeepsLinesTabsAndColoursOnly) {
  EXPECT_EQ(terminal_text("a\tb\n\x1b[1;31mred\x1b[0m\n"), "a\tb\n\x1b[1;31mred\x1b[0m\n");
  // Cursor moves, screen clears, titles, bells, C1 CSI and unterminated sequences are escaped.
  EXPECT_EQ(terminal_text("x\x1b[2Jy"), "x\\x1b[2Jy");
  EXPECT_EQ(terminal_text("\x1b]0;t\x07"), "\\x1b]0;t\\x07");
  EXPECT_EQ(terminal_text("\xc2\x9b"
                          "2J\r"),
            "\\xc2\\x9b2J\\x0d");
  EXPECT_EQ(terminal_text("\x1b[31"), "\\x1b[31");
  EXPECT_EQ(terminal_text("\x1b"), "\\x1b");
  EXPECT_EQ(terminal_text("caf\xc3\xa9"), "caf\xc3\xa9");
  // A lone C1 byte (CSI to an 8-bit terminal) is not UTF-8: it becomes U+FFFD.
  EXPECT_EQ(terminal_text("a\x9b"
                          "2J"),
            "a\xef\xbf\xbd"
            "2J");
  EXPECT_EQ(terminal_text(""), "");
}

}  // namespace anygpu
