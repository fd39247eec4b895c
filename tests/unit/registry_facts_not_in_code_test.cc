// Vendor facts live in data (data/vendors.yaml, data/wheels.yaml), never in code: every C++
// source under src/ is lexed (comments dropped, string and number literals kept) and no literal
// may be a registry vendor's PCI vendor id or an NVIDIA driver version. A table of either that
// creeps back into code fails here with the file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "registry/registry.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

namespace fs = std::filesystem;

struct Literal {
  int line;
  bool string;  // a string literal's contents, else a number token
  std::string text;
};

// The literals of a C++ source: comments skipped, raw strings understood, numbers as tokens.
std::vector<Literal> literals(const std::string& s) {
  std::vector<Literal> out;
  int line = 1;
  size_t i = 0, n = s.size();
  auto at = [&](size_t k) { return k < n ? s[k] : '\0'; };
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && at(i + 1) == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && at(i + 1) == '*') {
      for (i += 2; i < n && !(s[i] == '*' && at(i + 1) == '/'); ++i)
        if (s[i] == '\n') ++line;
      i += 2;
    } else if (c == 'R' && at(i + 1) == '"' &&
               (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])))) {
      size_t open = s.find('(', i + 2);
      std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      size_t end = s.find(close, open);
      std::string body = s.substr(open + 1, end - open - 1);
      out.push_back({line, true, body});
      for (char b : body)
        if (b == '\n') ++line;
      i = end + close.size();
    } else if (c == '"' || c == '\'') {
      std::string body;
      for (++i; i < n && s[i] != c; ++i) {
        if (s[i] == '\\') body += s[i++];
        body += s[i];
      }
      ++i;
      if (c == '"') out.push_back({line, true, body});
    } else if (std::isdigit(static_cast<unsigned char>(c)) &&
               (i == 0 ||
                (!std::isalnum(static_cast<unsigned char>(s[i - 1])) && s[i - 1] != '_'))) {
      size_t b = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '\'')) ++i;
      out.push_back({line, false, s.substr(b, i - b)});
    } else {
      ++i;
    }
  }
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream t;
  t << f.rdbuf();
  return t.str();
}

// Literals that are examples in a message, not facts anything decides by.
const std::set<std::pair<std::string, std::string>> kExamples = {
    {"src/contract/spec.cc", "535.54.03"},  // "expected a dotted version like 535.54.03"
};

// Every finding as "src/FILE:LINE: WHAT".
std::vector<std::string> scan_sources() {
  std::set<std::string> ids;  // "10de", both as 0x10de and as a string
  for (const auto& v : Registry::builtin().vendors())
    for (auto id : v.pci_vendor_ids) ids.insert(hex(id, 4).substr(2));
  const std::regex driver_version(R"(^[3-9][0-9]{2}\.[0-9]{2,3}(\.[0-9]{2})?$)");
  std::vector<std::string> found;
  fs::path src = fs::path(test::source_dir()) / "src";
  for (const auto& e : fs::recursive_directory_iterator(src)) {
    auto ext = e.path().extension();
    if (ext != ".cc" && ext != ".h") continue;
    auto where = fs::relative(e.path(), test::source_dir()).string();
    for (const auto& l : literals(read(e.path()))) {
      auto lower = to_lower(l.text);
      std::string bare = lower.rfind("0x", 0) == 0 ? lower.substr(2) : lower;
      bool is_id = ids.count(bare) && (l.string || lower.rfind("0x", 0) == 0);
      if (is_id)
        found.push_back(cat({where, ":", std::to_string(l.line), ": PCI vendor id ", l.text}));
      if (l.string && std::regex_match(l.text, driver_version) && !kExamples.count({where, l.text}))
        found.push_back(cat({where, ":", std::to_string(l.line), ": driver version ", l.text}));
    }
  }
  return found;
}

}  // namespace

TEST(RegistryFactsNotInCode, TheLexerSeesLiteralsAndSkipsComments) {
  auto l = literals(
      "// 0x10de \"550.54.14\"\nint x = 0x10DE; /* \"535.54.03\"\n*/ f(\"570.26\");\n"
      "auto r = R\"(580.65.06)\"; char q = '\"'; g(\"a\\\"b\");");
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].text, "0x10DE");
  EXPECT_FALSE(l[0].string);
  EXPECT_EQ(l[0].line, 2);
  EXPECT_EQ(l[1].text, "570.26");
  EXPECT_EQ(l[1].line, 3);
  EXPECT_EQ(l[2].text, "580.65.06");
  EXPECT_TRUE(l[2].string);
  EXPECT_EQ(l[3].text, "a\\\"b");
  EXPECT_EQ(l[3].line, 4);
}

TEST(RegistryFactsNotInCode, NoVendorIdOrDriverVersionInSources) {
  auto found = scan_sources();
  std::string all;
  for (const auto& f : found) all += f + "\n";
  EXPECT_TRUE(found.empty()) << "vendor facts belong in data/vendors.yaml or data/wheels.yaml:\n"
                             << all;
}

}  // namespace anygpu
