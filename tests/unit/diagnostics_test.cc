#include "util/diagnostics.h"

#include <gtest/gtest.h>

namespace anygpu {

namespace {
using Severity = Diagnostic::Severity;
}

TEST(Diagnostics, TextNamesWhereThenWhat) {
  EXPECT_EQ(Diagnostic::warning("/sys/x/numa_node", "not text").text(),
            "/sys/x/numa_node: not text");
  EXPECT_EQ(Diagnostic::warning("", "no PCI bus: permission denied").text(),
            "no PCI bus: permission denied");
  EXPECT_EQ(Diagnostic::note("chose 2 devices").text(), "chose 2 devices");
}

TEST(Diagnostics, KeepsEachWarningOnceInTheOrderFound) {
  Diagnostics d;
  d.warn("/sys/b", "empty");
  d.warn("/sys/a", "empty");
  d.warn("/sys/b", "empty");  // a second probe of the same host
  EXPECT_EQ(d.warnings(), (std::vector<std::string>{"/sys/b: empty", "/sys/a: empty"}));
  EXPECT_FALSE(d.add(Diagnostic::warning("/sys/a", "empty")));
  EXPECT_TRUE(d.add(Diagnostic::warning("/sys/a", "binary")));
}

TEST(Diagnostics, TheSameTextIsOneWarningHoweverItWasSplit) {
  Diagnostics d;
  d.warn("/sys/x", "not text (NUL bytes)");
  d.warn("/sys/x: not text (NUL bytes)");  // HostRoot's messages name their path themselves
  ASSERT_EQ(d.all().size(), 1u);
  EXPECT_EQ(d.all()[0].where, "/sys/x");
}

TEST(Diagnostics, NotesAreNotWarnings) {
  Diagnostics d;
  d.note("torchrun: needs --redirects 1");
  d.warn("cdi", "spec not used");
  d.warn("torchrun: needs --redirects 1");  // same text, other severity: both kept
  ASSERT_EQ(d.all().size(), 3u);
  EXPECT_EQ(d.all()[0].severity, Severity::note);
  EXPECT_EQ(d.warnings(),
            (std::vector<std::string>{"cdi: spec not used", "torchrun: needs --redirects 1"}));
}

TEST(Diagnostics, AddingAnotherCollectorMergesWithoutRepeats) {
  Diagnostics discovery, command;
  discovery.warn("/sys/a", "empty");
  discovery.warn("nvidia nvml", "crashed (SIGSEGV); kernel facts only");
  command.warn("/sys/a", "empty");
  command.warn("/etc/cdi/x.yaml", "grants /dev/mem");
  command.add(discovery);
  EXPECT_EQ(command.warnings(),
            (std::vector<std::string>{"/sys/a: empty", "/etc/cdi/x.yaml: grants /dev/mem",
                                      "nvidia nvml: crashed (SIGSEGV); kernel facts only"}));
  EXPECT_EQ(discovery.all().size(), 2u);  // the source is left as it was
}

TEST(Diagnostics, EmptyHasNoWarnings) {
  Diagnostics d;
  EXPECT_TRUE(d.all().empty());
  EXPECT_TRUE(d.warnings().empty());
}

}  // namespace anygpu
