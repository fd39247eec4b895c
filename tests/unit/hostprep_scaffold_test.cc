// `anygpu init`: the scaffold's files, their required properties, and never overwriting
// without force.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "contract/spec.h"
#include "hostprep/scaffold.h"
#include "select/accelerator_config.h"
#include "test_support.h"

namespace anygpu {
namespace {

using test::TempDir;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Scaffold, EmbeddedTemplatesAreTheShippedFiles) {
  auto t = init_templates();
  ASSERT_EQ(t.size(), 7u);
  for (const auto& f : t)
    EXPECT_EQ(f.content, read(test::source_dir() + "/data/init/" + std::string(f.path))) << f.path;
}

TEST(Scaffold, WritesEveryFileAndRefusesToOverwrite) {
  TempDir tmp;
  auto dir = tmp / "exp";
  auto r = scaffold_experiment(dir, false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->written.size(), 7u);
  EXPECT_TRUE(r->existing.empty());
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/train.py").c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR);
  ASSERT_EQ(::stat((dir + "/.github/workflows/image.yml").c_str(), &st), 0);

  test::write_file(dir + "/train.py", "# mine\n");
  auto again = scaffold_experiment(dir, false);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->written.empty());
  EXPECT_EQ(again->existing.size(), 7u);
  EXPECT_EQ(read(dir + "/train.py"), "# mine\n");  // untouched

  auto forced = scaffold_experiment(dir, true);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->written.size(), 7u);
  EXPECT_NE(read(dir + "/train.py"), "# mine\n");
}

TEST(Scaffold, PartiallyPresentWritesNothing) {
  TempDir tmp;
  test::write_file(tmp / "exp/Dockerfile", "FROM scratch\n");
  auto r = scaffold_experiment(tmp / "exp", false);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->existing, std::vector<std::string>{"Dockerfile"});
  EXPECT_TRUE(r->written.empty());
  struct stat st {};
  EXPECT_NE(::stat((tmp / "exp/train.py").c_str(), &st), 0);
}

TEST(Scaffold, TargetThatIsAFile) {
  TempDir tmp;
  test::write_file(tmp / "f", "x");
  auto r = scaffold_experiment(tmp / "f", false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
}

TEST(Scaffold, DockerfileFollowsTheImageRules) {
  std::string df;
  for (const auto& f : init_templates())
    if (f.path == "Dockerfile") df = std::string(f.content);
  EXPECT_TRUE(std::regex_search(df, std::regex(R"(ARG BASE_IMAGE=\S+@sha256:[0-9a-f]{64}\n)")));
  EXPECT_NE(df.find("FROM ${BASE_IMAGE}"), std::string::npos);
  EXPECT_NE(df.find("USER 1001:1001"), std::string::npos);
  EXPECT_NE(df.find("PYTHONUNBUFFERED=1"), std::string::npos);
  EXPECT_NE(df.find("WORKDIR /workspace"), std::string::npos);
  EXPECT_NE(df.find("ARG GPU_BACKEND"), std::string::npos);
  EXPECT_NE(df.find("ENTRYPOINT [\"anygpu\", \"run\", \"--\", \"python3\", \"train.py\"]"),
            std::string::npos);
  EXPECT_EQ(df.find("--privileged"), std::string::npos);
}

TEST(Scaffold, ContractAndConfigParse) {
  TempDir tmp;
  ASSERT_TRUE(scaffold_experiment(tmp.path(), false).ok());
  auto spec = load_contract(tmp / "runtime-spec.yaml");
  EXPECT_TRUE(spec.ok()) << spec.error().message;
  auto cfg = load_accelerator_config(tmp / "accelerator-config.yaml", true);
  EXPECT_TRUE(cfg.ok()) << cfg.error().message;
}

}  // namespace
}  // namespace anygpu
