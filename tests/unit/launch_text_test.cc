// Shell quoting of the printed plan, /etc/group parsing, the argv after `--`.
#include <gtest/gtest.h>

#include "launch/command_line.h"
#include "host/etc_group.h"
#include "launch/shell_quote.h"

namespace anygpu {
namespace {

TEST(LaunchShellQuote, QuotesOnlyWhatAShellWouldInterpret) {
  EXPECT_EQ(shell_quote("python3"), "python3");
  EXPECT_EQ(shell_quote("/a/b-c_d.py"), "/a/b-c_d.py");
  EXPECT_EQ(shell_quote("A=1"), "A=1");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("$(id)"), "'$(id)'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("*"), "'*'");
  EXPECT_EQ(shell_quote("a\nb"), "'a\nb'");
}

TEST(LaunchShellQuote, PlanLine) {
  LaunchPlan p;
  p.argv = {"printf", "%s\n", "x y"};
  p.env = {{"A", "1 2"}};
  p.unset_env = {"ROCR_VISIBLE_DEVICES"};
  EXPECT_EQ(plan_to_shell(p), "env -u ROCR_VISIBLE_DEVICES 'A=1 2' printf '%s\n' 'x y'");
  p.argv = {"X=1", "y"};
  EXPECT_EQ(plan_to_shell(p), "env -u ROCR_VISIBLE_DEVICES 'A=1 2' -- X=1 y");
  p.env.clear();
  p.unset_env.clear();
  p.argv = {"podman", "run", "img"};
  EXPECT_EQ(plan_to_shell(p), "podman run img");
}

TEST(LaunchEtcGroup, FindsWantedIds) {
  auto ids = parse_group_ids(
      "root:x:0:\n# comment\n\nvideo:x:44:alice,bob\n+\nrender:x:993:\n"
      "video:x:45:\n",
      "/etc/group", {"video", "render"});
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  EXPECT_EQ(ids->at("video"), 44);  // first entry wins
  EXPECT_EQ(ids->at("render"), 993);
  EXPECT_TRUE(parse_group_ids("", "g", {"video"})->empty());
}

TEST(LaunchEtcGroup, MalformedLinesNameFileAndLine) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"video:x:44\n", "g:1: expected name:password:gid:members, found 3 fields"},
      {"root:x:0:\nvideo:x:abc:\n", "g:2: group id 'abc' is not a number"},
      {"video:x:99999999999999999999:\n", "g:1: group id"},
      {"video:x:4294967295:\n", "g:1: group id"},
      {"video:x:3000000000:\n", "g:1: group id 3000000000 is out of range"},
      {"video:x:-1:\n", "g:1: group id"},
      {"\x01\x02garbage", "g:1:"},
      {"video:x:44:a:b\n", "found 5 fields"},
  };
  for (const auto& c : cases) {
    auto r = parse_group_ids(c.text, "g", {"video"});
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find(c.want), std::string::npos) << r.error().message;
  }
}

TEST(LaunchCommandLine, ArgumentsAfterTheFirstMarker) {
  std::vector<std::string> argv = {"anygpu", "--json", "run",   "--dry-run", "--",
                                   "a",      "--",     "[1,2]", "{}",        ""};
  auto cmd = command_after_marker(argv, "run");
  ASSERT_TRUE(cmd);
  EXPECT_EQ(*cmd, (std::vector<std::string>{"a", "--", "[1,2]", "{}", ""}));
  EXPECT_FALSE(command_after_marker({"anygpu", "run", "x"}, "run"));
  EXPECT_EQ(command_after_marker({"anygpu", "run", "--"}, "run")->size(), 0u);
  EXPECT_FALSE(own_argv().empty());
}

}  // namespace
}  // namespace anygpu
