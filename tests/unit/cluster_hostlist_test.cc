#include "cluster/hostlist.h"

#include <gtest/gtest.h>

namespace anygpu {

using Hosts = std::vector<std::string>;

Hosts expand(std::string_view e) {
  auto r = expand_hostlist(e);
  EXPECT_TRUE(r) << e << ": " << r.error().message;
  return r ? *r : Hosts{};
}

TEST(Hostlist, PlainNamesAndLists) {
  EXPECT_EQ(expand("node1"), (Hosts{"node1"}));
  EXPECT_EQ(expand("n1,n[3-5],m"), (Hosts{"n1", "n3", "n4", "n5", "m"}));
  EXPECT_EQ(expand("a b\tc"), (Hosts{"a", "b", "c"}));
  EXPECT_EQ(expand(""), Hosts{});
  EXPECT_EQ(expand("a,,b,"), (Hosts{"a", "b"}));  // empty items are skipped, as Slurm does
}

TEST(Hostlist, RangesKeepZeroPaddingAndOrder) {
  EXPECT_EQ(expand("gpu[01-04,07]"), (Hosts{"gpu01", "gpu02", "gpu03", "gpu04", "gpu07"}));
  EXPECT_EQ(expand("n[8-11]"), (Hosts{"n8", "n9", "n10", "n11"}));
  EXPECT_EQ(expand("n[098-101]"), (Hosts{"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(expand("n[3,1,2]"), (Hosts{"n3", "n1", "n2"}));
  EXPECT_EQ(expand("n[1-2,1]"), (Hosts{"n1", "n2", "n1"}));  // duplicates kept
  EXPECT_EQ(expand("rack1-n[0-1].ib"), (Hosts{"rack1-n0.ib", "rack1-n1.ib"}));
}

TEST(Hostlist, SeveralBracketsAreACartesianProduct) {
  EXPECT_EQ(expand("a[1-2]-b[3-4]"), (Hosts{"a1-b3", "a1-b4", "a2-b3", "a2-b4"}));
  EXPECT_EQ(expand("r[1-2]n[01,03],x"), (Hosts{"r1n01", "r1n03", "r2n01", "r2n03", "x"}));
}

void expect_error(std::string_view e, std::string_view fragment) {
  auto r = expand_hostlist(e);
  ASSERT_FALSE(r) << e;
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  const auto& m = r.error().message;
  EXPECT_NE(m.find(fragment), std::string::npos) << m;
  EXPECT_NE(m.find("hostlist \""), std::string::npos) << m;
}

TEST(Hostlist, MalformedExpressionsNameTheColumn) {
  expect_error("gpu[01-", "column 8: expression ends inside brackets");
  expect_error("gpu[01", "column 4: '[' is never closed");
  expect_error("gpu]", "column 4: ']' without '['");
  expect_error("gpu[]", "column 5: expected a number");
  expect_error("gpu[a-b]", "column 5: expected a number");
  expect_error("gpu[4-2]", "column 7: range goes backwards");
  expect_error("gpu[1-2[3]]", "column 8: brackets cannot nest");
  expect_error("gpu[1;2]", "column 6: unexpected ';'");
  expect_error("gpu[1,]", "column 7: expected a number");
  expect_error("n\x01", "column 2: control character");
  expect_error("a,[1-2]x", "column 3: a host name cannot start with '['");
}

TEST(Hostlist, HugeExpansionsAreRefusedBeforeBuilding) {
  expect_error("n[0-999999999]", "more than 65536 hosts");
  expect_error("a[0-999]b[0-999]", "more than 65536 hosts");
  expect_error("n[0-40000],m[0-40000]", "column 12: expands to more than 65536 hosts");
  expect_error("n[1234567890]", "longer than 9 digits");
  expect_error(std::string(300, 'x'), "longer than 255 characters");
  EXPECT_EQ(expand("n[0-65535]").size(), 65536u);
}

TEST(Hostlist, LongExpressionsAreQuotedShortened) {
  std::string e = "n[" + std::string(400, '1');
  auto r = expand_hostlist(e);
  ASSERT_FALSE(r);
  EXPECT_LT(r.error().message.size(), 300u);
}

}  // namespace anygpu
