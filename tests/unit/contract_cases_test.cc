// Data-driven contract cases, one directory per case under tests/contract/cases/<case>/:
//   spec.yaml       the contract
//   host            the fixture host's name (tests/hosts/<name>)
//   expected        first line: pass | fail | bad_input; every further line must appear in the
//                   text output (or in the error message for bad_input)
//   site-packages/  optional: the Python environment (used as sys.path, no interpreter)
#include <dirent.h>
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "contract/check.h"
#include "contract/evaluate.h"
#include "contract/spec.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

std::string cases_dir() {
  return test::source_dir() + "/tests/contract/cases";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> case_names() {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(cases_dir().c_str())) {
    while (auto* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const Inventory& fixture(const std::string& name) {
  static std::map<std::string, Inventory> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, test::probe_root(test::fixture_host(name))).first;
  return it->second;
}

class ContractCase : public ::testing::TestWithParam<std::string> {};

TEST_P(ContractCase, Matches) {
  const auto dir = cases_dir() + "/" + GetParam();
  auto host_name = std::string(trim(slurp(dir + "/host")));
  ASSERT_FALSE(host_name.empty()) << dir << "/host";
  auto expected = slurp(dir + "/expected");
  auto lines = split_lines(expected);
  ASSERT_FALSE(lines.empty()) << dir << "/expected";
  auto verdict_word = std::string(trim(lines[0]));

  auto spec = load_contract(dir + "/spec.yaml");
  std::string output;
  std::string got;
  if (!spec.ok()) {
    got = "bad_input";
    output = spec.error().message;
  } else {
    PythonFacts py;
    py.python = "case-python";
    struct stat st {};
    if (::stat((dir + "/site-packages").c_str(), &st) == 0)
      py.env = read_site_packages({dir + "/site-packages"});
    else
      py.error = "no site-packages in this case";
    auto v = evaluate_contract(*spec, fixture(host_name), py);
    got = v.passed() ? "pass" : "fail";
    output = render_check_text("spec.yaml", v);
  }
  EXPECT_EQ(got, verdict_word) << output;
  for (size_t i = 1; i < lines.size(); ++i) {
    auto want = std::string(lines[i]);
    if (trim(want).empty()) continue;
    EXPECT_NE(output.find(want), std::string::npos) << "missing line: " << want << "\n" << output;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ContractCase, ::testing::ValuesIn(case_names()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(ContractCases, ThereAreCases) {
  EXPECT_GE(case_names().size(), 10u);
}

}  // namespace
}  // namespace anygpu
