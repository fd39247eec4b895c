// The confined write path: links planted beneath a target never carry a write out of it,
// temporaries are unpredictable and exclusive, stale ones of killed runs (and only those) are
// removed, and a staged tree appears whole. Every case runs with openat2 and with the
// component walk that kernels without it get.
#include "host/confined_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>

#include "test_support.h"

namespace anygpu {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::string cat_pid(const std::string& s) {
  return s + std::to_string(::getpid());
}

bool is_link(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool present(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (auto* e = ::readdir(d))
      if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..")
        out.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class ConfinedWriter : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { testing_hooks::confined_writer_use_openat2(GetParam()); }
  void TearDown() override { testing_hooks::confined_writer_use_openat2(true); }
  test::TempDir tmp;
};

INSTANTIATE_TEST_SUITE_P(Openat2AndWalk, ConfinedWriter, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "openat2" : "walk"; });

TEST_P(ConfinedWriter, WritesWholeFilesAndCreatesParentsWithoutLeftovers) {
  auto dir = ConfinedDir::open(tmp / "t", Confinement::no_symlinks, true);
  ASSERT_TRUE(dir) << dir.error().message;
  ASSERT_TRUE(dir->write_file("/a/b/c.txt", "one\n"));
  ASSERT_TRUE(dir->write_file("a/b/c.txt", "two\n", {.mode = 0600}));
  EXPECT_EQ(read_all(tmp / "t/a/b/c.txt"), "two\n");
  struct stat st {};
  ASSERT_EQ(::stat((tmp / "t/a/b/c.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(entries(tmp / "t/a/b"), std::vector<std::string>{"c.txt"});
  auto back = dir->read_file("a/b/c.txt");
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, "two\n");
  auto up = dir->write_file("a/../../x", "no");
  ASSERT_FALSE(up);
  EXPECT_EQ(up.error().kind, ErrorKind::bad_input);
}

TEST_P(ConfinedWriter, LinksLeavingAStagedRootRefuseTheWrite) {
  auto root = tmp / "root";
  auto outside = tmp / "elsewhere";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((root + "/etc").c_str(), 0755), 0);
  test::make_symlink(outside, root + "/etc/anygpu");     // absolute
  test::make_symlink("../../elsewhere", root + "/opt");  // relative, climbing out
  auto dir = ConfinedDir::open(root, Confinement::beneath);
  ASSERT_TRUE(dir);
  for (const char* rel : {"/etc/anygpu/host.json", "/opt/gpu-config/vendor"}) {
    auto w = dir->write_file(rel, "x");
    ASSERT_FALSE(w) << rel;
    EXPECT_EQ(w.error().kind, ErrorKind::bad_input) << rel;
    EXPECT_NE(w.error().message.find(root + rel), std::string::npos) << w.error().message;
    EXPECT_NE(w.error().message.find("symbolic link"), std::string::npos) << w.error().message;
    EXPECT_FALSE(dir->read_file(rel)) << rel;  // the read-back sees no file there either
  }
  EXPECT_TRUE(entries(outside).empty());
  // A link that stays beneath the root is followed where openat2 can prove it stays; the
  // walk follows none.
  ASSERT_EQ(::mkdir((root + "/etc/cdi.d").c_str(), 0755), 0);
  test::make_symlink("cdi.d", root + "/etc/cdi");
  auto inside = dir->write_file("/etc/cdi/anygpu.yaml", "spec");
  EXPECT_EQ(inside.ok(), GetParam()) << (inside ? "" : inside.error().message);
  if (inside) {
    EXPECT_EQ(read_all(root + "/etc/cdi.d/anygpu.yaml"), "spec");
  }
}

TEST_P(ConfinedWriter, NoLinkIsFollowedBeneathATargetDirectory) {
  auto outside = tmp / "elsewhere";
  ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((tmp / "exp").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((tmp / "exp/real").c_str(), 0755), 0);
  test::make_symlink(outside, tmp / "exp/.github");
  test::make_symlink("real", tmp / "exp/inside");
  auto dir = ConfinedDir::open(tmp / "exp", Confinement::no_symlinks);
  ASSERT_TRUE(dir);
  for (const char* rel : {".github/workflows/ci.yml", "inside/x"}) {
    auto w = dir->write_file(rel, "x");
    ASSERT_FALSE(w) << rel;
    EXPECT_EQ(w.error().kind, ErrorKind::bad_input);
    EXPECT_FALSE(dir->check(rel)) << rel;
  }
  EXPECT_FALSE(dir->make_dirs(".github/workflows"));
  EXPECT_FALSE(dir->make_symlink(".github/l", "/"));
  EXPECT_TRUE(entries(outside).empty());
  EXPECT_TRUE(entries(tmp / "exp/real").empty());
  EXPECT_TRUE(dir->check("new/dir/file"));  // missing parents are fine: they would be made
}

TEST_P(ConfinedWriter, ALinkAtTheTargetIsReplacedNotFollowed) {
  auto victim = tmp / "victim";
  test::write_file(victim, "precious\n");
  ASSERT_EQ(::mkdir((tmp / "d").c_str(), 0755), 0);
  test::make_symlink(victim, tmp / "d/spec.yaml");
  // The name earlier versions used for their temporary, predictable from the PID.
  test::make_symlink(victim, tmp / cat_pid("d/.spec.yaml.tmp"));
  auto dir = ConfinedDir::open(tmp / "d", Confinement::no_symlinks);
  ASSERT_TRUE(dir);
  EXPECT_FALSE(dir->read_file("spec.yaml"));  // not "already there": the link is not ours
  ASSERT_TRUE(dir->write_file("spec.yaml", "new\n"));
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_FALSE(is_link(tmp / "d/spec.yaml"));
  EXPECT_EQ(read_all(tmp / "d/spec.yaml"), "new\n");
}

// A cache lists, renames and removes its own files: never through a link, never a link's
// target, never in a directory reached through a link.
TEST_P(ConfinedWriter, ListRenameRemoveTouchNoLinkTarget) {
  auto victim = tmp / "victim";
  test::write_file(victim, "precious\n");
  auto outside = tmp / "outside";
  ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
  test::write_file(outside + "/x", "x\n");
  ASSERT_EQ(::mkdir((tmp / "c").c_str(), 0755), 0);
  test::write_file(tmp / "c/a", "a\n");
  test::make_symlink(victim, tmp / "c/link");
  test::make_symlink(outside, tmp / "c/sub");
  auto dir = ConfinedDir::open(tmp / "c", Confinement::no_symlinks);
  ASSERT_TRUE(dir);
  auto listed = dir->list("");
  ASSERT_TRUE(listed);
  std::map<std::string, bool> regular;
  for (const auto& e : *listed) regular[e.name] = e.regular;
  EXPECT_EQ(regular, (std::map<std::string, bool>{{"a", true}, {"link", false}, {"sub", false}}));
  EXPECT_FALSE(dir->list("sub"));  // a directory reached through a link
  auto r = dir->remove_file("link");
  ASSERT_TRUE(r);
  EXPECT_FALSE(*r);
  EXPECT_TRUE(is_link(tmp / "c/link"));
  EXPECT_EQ(read_all(victim), "precious\n");
  EXPECT_FALSE(dir->remove_file("sub/x"));
  EXPECT_TRUE(present(outside + "/x"));
  auto moved = dir->rename_file("link", "moved");
  ASSERT_TRUE(moved);
  EXPECT_FALSE(*moved);
  EXPECT_FALSE(dir->rename_file("a", "../a"));
  moved = dir->rename_file("a", "a.corrupt-1");
  ASSERT_TRUE(moved);
  EXPECT_TRUE(*moved);
  EXPECT_EQ(read_all(tmp / "c/a.corrupt-1"), "a\n");
  r = dir->remove_file("a.corrupt-1");
  ASSERT_TRUE(r);
  EXPECT_TRUE(*r);
  EXPECT_EQ(entries(tmp / "c"), (std::vector<std::string>{"link", "sub"}));
  r = dir->remove_file("gone");
  ASSERT_TRUE(r);
  EXPECT_FALSE(*r);
}

TEST_P(ConfinedWriter, OnlyStaleTemporariesOfItsOwnAreRemoved) {
  auto d = tmp / "d";
  ASSERT_EQ(::mkdir(d.c_str(), 0755), 0);
  const std::string p = temp_file_prefix("host.json");
  test::write_file(d + "/" + p + "0123456789abcdef", "killed run");
  test::write_file(d + "/" + p + "fedcba9876543210", "live writer");
  test::write_file(d + "/" + p + "not-random", "someone else's");
  test::write_file(d + "/" + temp_file_prefix("other") + "0123456789abcdef", "another name's");
  test::make_symlink("/etc/passwd", d + "/" + p + "00000000000000aa");
  int live = ::open((d + "/" + p + "fedcba9876543210").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(live, 0);
  ASSERT_EQ(::flock(live, LOCK_EX), 0);
  auto dir = ConfinedDir::open(d, Confinement::no_symlinks);
  ASSERT_TRUE(dir);
  ASSERT_TRUE(dir->write_file("host.json", "{}\n"));
  ::close(live);
  EXPECT_EQ(entries(d), (std::vector<std::string>{
                            p + "00000000000000aa", p + "fedcba9876543210", p + "not-random",
                            temp_file_prefix("other") + "0123456789abcdef", "host.json"}));
  ASSERT_TRUE(dir->write_file("host.json", "{}\n"));  // the writer is gone now
  EXPECT_FALSE(present(d + "/" + p + "fedcba9876543210"));
}

TEST_P(ConfinedWriter, StagedTreeAppearsWholeOrNotAtAll) {
  auto dest = tmp / "out/copy";
  {
    auto staged = StagedTree::begin(dest);
    ASSERT_TRUE(staged) << staged.error().message;
    ASSERT_TRUE((*staged)->tree().write_file("sys/x", "1", {.sync = false, .atomic = false}));
    EXPECT_FALSE(present(dest));
  }  // abandoned: nothing stays
  EXPECT_TRUE(entries(tmp / "out").empty());
  // An empty destination is replaced by the rename, never removed first.
  ASSERT_EQ(::mkdir(dest.c_str(), 0755), 0);
  auto staged = StagedTree::begin(dest);
  ASSERT_TRUE(staged);
  ASSERT_TRUE((*staged)->tree().make_symlink("a/link", "../b"));
  EXPECT_TRUE(present(dest));
  ASSERT_TRUE((*staged)->commit());
  EXPECT_TRUE(is_link(dest + "/a/link"));
  EXPECT_EQ(entries(tmp / "out"), std::vector<std::string>{"copy"});
  auto again = StagedTree::begin(dest);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find(dest), std::string::npos);
  test::make_symlink(tmp / "out", tmp / "linked");
  EXPECT_FALSE(StagedTree::begin(tmp / "linked"));  // a link is not an empty directory
}

TEST_P(ConfinedWriter, StaleStagingTreesOfKilledRunsAreRemoved) {
  auto parent = tmp / "p";
  ASSERT_EQ(::mkdir(parent.c_str(), 0755), 0);
  const std::string stale = parent + "/" + staged_tree_prefix("copy") + "0123456789abcdef";
  const std::string live = parent + "/" + staged_tree_prefix("copy") + "aaaaaaaaaaaaaaaa";
  ASSERT_EQ(::mkdir(stale.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((stale + "/sys").c_str(), 0755), 0);
  test::write_file(stale + "/sys/f", "x");
  ASSERT_EQ(::mkdir((tmp / "keep").c_str(), 0755), 0);
  test::write_file(tmp / "keep/file", "kept");
  test::make_symlink(tmp / "keep", stale + "/sys/root");
  ASSERT_EQ(::mkdir(live.c_str(), 0755), 0);
  int lock = ::open(live.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_EQ(::flock(lock, LOCK_EX), 0);
  auto staged = StagedTree::begin(parent + "/copy");
  ASSERT_TRUE(staged);
  ASSERT_TRUE((*staged)->commit());
  ::close(lock);
  EXPECT_FALSE(present(stale));
  EXPECT_TRUE(present(live));
  EXPECT_TRUE(present(tmp / "keep/file"));  // the link inside was removed, not followed
}

}  // namespace
}  // namespace anygpu
