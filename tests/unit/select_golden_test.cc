// `anygpu select -v` and `select --json` on every fixture host, against tests/golden/select/.
// Hosts without partitions pin today's output byte for byte; the partitioned hosts (CPX, mixed
// MIG) pin the partition as the unit; the MI210 host's counts pin the xGMI link domain. The fixture
// root and the scratch directory are written as <source> and nothing else is rewritten.
// ANYGPU_UPDATE_GOLDEN=1 rewrites the files (review the diff: a golden changes only where the
// behaviour is meant to).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "select/render.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

struct Case {
  std::string name, host, config;  // config "" : none (backend auto)
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() + "/tests/hosts"))
    if (std::filesystem::exists(e.path() / "expected.json"))
      out.push_back({e.path().filename().string(), e.path().filename().string(), ""});
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  out.push_back({"mi300x-8x-cpx.count3", "mi300x-8x-cpx", "devices: 3\n"});
  out.push_back({"mi300x-8x-cpx.list", "mi300x-8x-cpx", "devices: [7:6, \"0000:27:00.0/3\"]\n"});
  out.push_back({"mi300x-8x-cpx.whole-refused", "mi300x-8x-cpx", "devices: [0]\n"});
  out.push_back({"h100-8x-mig.count2", "h100-8x-mig", "devices: 2\n"});
  // Two xGMI hives of four: 2 and 4 in one hive, 5 spills over NUMA nodes.
  for (const char* n : {"2", "4", "5"})
    out.push_back({cat({"mi210-xgmi-8x.count", n}), "mi210-xgmi-8x", cat({"devices: ", n, "\n"})});
  out.push_back({"h100-8x-mig.mig-refused", "h100-8x-mig", "devices: [0:1, 3]\n"});
  // Two tiles of one Max card (Level Zero's flat numbers); a PF lending to its VFs, named.
  out.push_back({"intel-max-arc.count2", "intel-max-arc", "devices: 2\n"});
  out.push_back({"intel-flex-sriov.pf-refused", "intel-flex-sriov", "devices: [0]\n"});
  out.push_back({"mi308x-8x-cpx.count3", "mi308x-8x-cpx", "devices: 3\n"});
  // More partitions than one device holds: KFD's partition links make them one xGMI domain,
  // filled device by device.
  out.push_back({"mi300x-8x-cpx.count12", "mi300x-8x-cpx", "devices: 12\n"});
  out.push_back({"mi308x-8x-cpx.count6", "mi308x-8x-cpx", "devices: 6\n"});
  return out;
}

std::string run(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  out += cat({"exit ", std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1), "\n"});
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(SelectGolden, EveryFixtureHostAndThePartitionCases) {
  test::TempDir tmp;
  const bool update = std::getenv("ANYGPU_UPDATE_GOLDEN") != nullptr;
  const std::string dir = test::source_dir() + "/tests/golden/select/";
  int compared = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    std::string config = c.config.empty() ? std::string() : " --config accelerator-config.yaml";
    if (!c.config.empty()) test::write_file(tmp / "accelerator-config.yaml", c.config);
    // A clean environment: the caller's own visible-devices variables would narrow the choice.
    std::string base = cat({"cd ", shell_quote(tmp.path()), " && env -i PATH=/usr/bin:/bin ",
                            shell_quote(test::anygpu_binary()), " select --root ",
                            shell_quote(test::fixture_host(c.host)), config});
    for (const auto& [suffix, flags] : {std::pair<std::string, std::string>{".txt", " -v 2>&1"},
                                        {".json", " --json 2>/dev/null"}}) {
      auto got = replace_all(run(base + flags), test::source_dir(), "<source>");
      if (update) {
        std::ofstream(dir + c.name + suffix) << got;
        continue;
      }
      EXPECT_EQ(got, slurp(dir + c.name + suffix)) << dir + c.name + suffix;
      ++compared;
    }
  }
  EXPECT_TRUE(update || compared >= 2 * 20) << compared;
}

}  // namespace anygpu
