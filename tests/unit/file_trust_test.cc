// util/file_trust.h: who besides root and this user can change a file that steers anygpu, judged
// along every directory above it from the descriptors the walk opened; only regular files.
#include "util/file_trust.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <chrono>

#include "test_support.h"
#include "util/regular_file.h"

namespace anygpu {

namespace {

using test::TempDir;
using test::write_file;

constexpr uid_t kNobody = 65534;

// The walk's verdict on `path`, or the error message prefixed with "error: ".
std::string verdict(const std::string& path, TrustOptions options = {}) {
  auto f = open_checked(path, "test file", options);
  if (!f) return "error: " + f.error().message;
  return f->untrusted;
}

void chmod_or_fail(const std::string& path, mode_t mode) {
  ASSERT_EQ(::chmod(path.c_str(), mode), 0) << path;
}

class FileTrust : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::mkdir((dir / "conf").c_str(), 0755), 0);
    write_file(dir / "conf/file.yaml", "a: 1\n");
    chmod_or_fail(dir / "conf/file.yaml", 0644);
  }
  TempDir dir;
};

}  // namespace

TEST_F(FileTrust, OwnFilesBeneathTrustedDirectoriesAreTrusted) {
  EXPECT_EQ(verdict(dir / "conf/file.yaml"), "");
  auto text = read_trusted_file(dir / "conf/file.yaml", 100, "test file");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "a: 1\n");
}

TEST_F(FileTrust, AFileWritableByOthersIsNot) {
  chmod_or_fail(dir / "conf/file.yaml", 0666);
  EXPECT_EQ(verdict(dir / "conf/file.yaml"),
            dir / "conf/file.yaml" + ": writable by others (mode 0666)");
  auto text = read_trusted_file(dir / "conf/file.yaml", 100, "test file");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::bad_input);
  EXPECT_NE(text.error().message.find("refused (the test file)"), std::string::npos)
      << text.error().message;
}

TEST_F(FileTrust, ADirectoryAboveWritableByOthersIsNamed) {
  chmod_or_fail(dir / "conf", 0777);
  EXPECT_EQ(verdict(dir / "conf/file.yaml"), dir / "conf" + ": writable by others (mode 0777)");
}

TEST_F(FileTrust, AStickyDirectoryIsTrustedForItsOwnersEntries) {
  // /tmp's rule: others may add entries, but cannot replace ours.
  chmod_or_fail(dir / "conf", 01777);
  EXPECT_EQ(verdict(dir / "conf/file.yaml"), "");
}

// Whether `gid` is `user`'s private group as the rule reads it: primary, no other member.
bool private_group(gid_t gid, uid_t user) {
  struct passwd* pw = ::getpwuid(user);
  if (!pw || pw->pw_gid != gid) return false;
  std::string name = pw->pw_name;
  struct group* gr = ::getgrgid(gid);
  if (!gr) return false;
  for (char** m = gr->gr_mem; m && *m; ++m)
    if (name != *m) return false;
  return true;
}

TEST_F(FileTrust, GroupWriteIsTrustedOnlyForRootsGroupOrTheUsersPrivateGroup) {
  chmod_or_fail(dir / "conf/file.yaml", 0664);
  struct stat st {};
  ASSERT_EQ(::stat((dir / "conf/file.yaml").c_str(), &st), 0);
  if (st.st_gid == 0 || private_group(st.st_gid, ::geteuid())) {
    EXPECT_EQ(verdict(dir / "conf/file.yaml"), "");
  } else {
    EXPECT_EQ(verdict(dir / "conf/file.yaml"), dir / "conf/file.yaml" + ": writable by group " +
                                                   std::to_string(st.st_gid) + " (mode 0664)");
  }
  if (::geteuid() != 0) return;
  // A group other than root's, which only root can give away.
  ASSERT_EQ(::chown((dir / "conf/file.yaml").c_str(), 0, 4242), 0);
  EXPECT_EQ(verdict(dir / "conf/file.yaml"),
            dir / "conf/file.yaml" + ": writable by group 4242 (mode 0664)");
  // nobody's primary group (user private groups, umask 002): trusted for nobody when it names
  // no other member, never for root.
  struct passwd* nobody = ::getpwuid(kNobody);
  if (!nobody) return;
  gid_t g = nobody->pw_gid;
  ASSERT_EQ(::chown((dir / "conf/file.yaml").c_str(), 0, g), 0);
  TrustOptions as_nobody;
  as_nobody.user = kNobody;
  std::string group_write =
      dir / "conf/file.yaml" + ": writable by group " + std::to_string(g) + " (mode 0664)";
  EXPECT_EQ(verdict(dir / "conf/file.yaml", as_nobody),
            private_group(g, kNobody) ? "" : group_write);
  EXPECT_EQ(verdict(dir / "conf/file.yaml"), g == 0 ? "" : group_write);
}

TEST_F(FileTrust, AnotherUsersFileIsNot) {
  // Without root, ownership is tested by trusting another uid than the files' owner.
  TrustOptions someone_else;
  someone_else.user = ::geteuid() + 1;
  std::string owner = std::to_string(::geteuid());
  if (::geteuid() == 0) {
    // Root's files are trusted whoever runs: the first component owned by this test's user
    // is the temporary directory only when it is not root's.
    EXPECT_EQ(verdict(dir / "conf/file.yaml", someone_else), "");
    ASSERT_EQ(::chown((dir / "conf/file.yaml").c_str(), kNobody, kNobody), 0);
    EXPECT_EQ(
        verdict(dir / "conf/file.yaml"),
        dir / "conf/file.yaml" + ": owned by uid 65534, neither root nor uid 0 (this process)");
    ASSERT_EQ(::chown((dir / "conf").c_str(), kNobody, kNobody), 0);
    EXPECT_EQ(verdict(dir / "conf/file.yaml"),
              dir / "conf" + ": owned by uid 65534, neither root nor uid 0 (this process)");
  } else {
    auto v = verdict(dir / "conf/file.yaml", someone_else);
    EXPECT_NE(v.find(": owned by uid " + owner + ", neither root nor uid "), std::string::npos)
        << v;
  }
}

TEST_F(FileTrust, LinksAreFollowedByTheWalkAndJudgedAlongTheWay) {
  ASSERT_EQ(::mkdir((dir / "open").c_str(), 0777), 0);
  chmod_or_fail(dir / "open", 0777);
  write_file(dir / "open/real.yaml", "b: 2\n");
  chmod_or_fail(dir / "open/real.yaml", 0644);
  test::make_symlink("../open/real.yaml", dir / "conf/link.yaml");
  // The file read lies in a directory anyone can write: the link does not hide it.
  EXPECT_EQ(verdict(dir / "conf/link.yaml"), dir / "open" + ": writable by others (mode 0777)");
  chmod_or_fail(dir / "open", 0755);
  auto f = open_checked(dir / "conf/link.yaml", "test file");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f->untrusted, "");
  auto text = read_open_file(f->fd.get(), "x", 100);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "b: 2\n");
  if (::geteuid() == 0) {
    // In a sticky directory anyone may plant a link: its owner decides.
    chmod_or_fail(dir / "conf", 01777);
    ASSERT_EQ(::lchown((dir / "conf/link.yaml").c_str(), kNobody, kNobody), 0);
    EXPECT_EQ(
        verdict(dir / "conf/link.yaml"),
        dir / "conf/link.yaml" + ": owned by uid 65534, neither root nor uid 0 (this process)");
  }
}

TEST_F(FileTrust, BeneathAReplayRootLinksStayInside) {
  ASSERT_EQ(::mkdir((dir / "etc").c_str(), 0755), 0);
  write_file(dir / "etc/real.yaml", "c: 3\n");
  chmod_or_fail(dir / "etc/real.yaml", 0644);
  test::make_symlink("/etc/real.yaml", dir / "conf/abs.yaml");
  test::make_symlink("../../../../../../etc/real.yaml", dir / "conf/up.yaml");
  TrustOptions replay;
  replay.root = dir.path();
  for (const char* p : {"/conf/abs.yaml", "/conf/up.yaml", "conf/../etc/real.yaml"}) {
    auto f = open_checked(p, "test file", replay);
    ASSERT_TRUE(f) << p << ": " << f.error().message;
    EXPECT_EQ(f->untrusted, "") << p;
    EXPECT_EQ(*read_open_file(f->fd.get(), p, 100), "c: 3\n") << p;
  }
  chmod_or_fail(dir / "etc", 0777);
  // Named as the path on this machine.
  EXPECT_EQ(verdict("/conf/abs.yaml", replay), dir / "etc" + ": writable by others (mode 0777)");
}

TEST_F(FileTrust, OnlyRegularFilesAreOpenedAndNothingBlocks) {
  ASSERT_EQ(::mkfifo((dir / "conf/fifo.yaml").c_str(), 0644), 0);
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  struct sockaddr_un addr {};
  addr.sun_family = AF_UNIX;
  std::string sock = dir / "conf/sock.yaml";
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(verdict(dir / "conf/fifo.yaml"),
            "error: " + dir / "conf/fifo.yaml" + ": is a FIFO, not a regular file (the test file)");
  EXPECT_EQ(verdict(dir / "conf/sock.yaml"),
            "error: " + sock + ": is a socket, not a regular file (the test file)");
  EXPECT_EQ(verdict("/dev/null"),
            "error: /dev/null: is a character device, not a regular file (the test file)");
  EXPECT_NE(verdict(dir / "conf").find("a directory"), std::string::npos);
  // The same through the plain reader and the ELF reader's door.
  auto r = read_regular_file(dir / "conf/fifo.yaml", 100, "config");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            dir / "conf/fifo.yaml" + ": is a FIFO, not a regular file (the config)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ::close(s);
}

TEST_F(FileTrust, MissingFilesAndLoopsAreErrorsNamingThePath) {
  auto missing = open_checked(dir / "conf/none.yaml", "test file");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().sys_errno, ENOENT);
  EXPECT_NE(missing.error().message.find(dir / "conf/none.yaml"), std::string::npos);
  test::make_symlink("loop.yaml", dir / "conf/loop.yaml");
  auto loop = open_checked(dir / "conf/loop.yaml", "test file");
  ASSERT_FALSE(loop);
  EXPECT_EQ(loop.error().sys_errno, ELOOP);
  write_file(dir / "conf/plain", "x");
  auto through = open_checked(dir / "conf/plain/file.yaml", "test file");
  ASSERT_FALSE(through);
  EXPECT_EQ(through.error().sys_errno, ENOTDIR);
}

TEST(ResourceErrors, AreSaidAsWhatRanOutAndCounted) {
  uint64_t before = resource_error_count();
  auto e = system_error("/x", "cannot open the test file", EMFILE);
  EXPECT_EQ(e.kind, ErrorKind::host);
  EXPECT_EQ(e.sys_errno, EMFILE);
  EXPECT_NE(e.message.find("/x: cannot open the test file: this process is out of file "
                           "descriptors (limit "),
            std::string::npos)
      << e.message;
  EXPECT_EQ(resource_error_count(), before + 1);
  EXPECT_NE(system_error("/y", "cannot write", EROFS).message.find("mounted read-only"),
            std::string::npos);
  EXPECT_NE(system_error("/y", "cannot write", ENOSPC).message.find("no space left"),
            std::string::npos);
  EXPECT_EQ(resource_error_count(), before + 3);
  auto denied = system_error("/z", "cannot open", EACCES);
  EXPECT_EQ(denied.kind, ErrorKind::bad_input);
  EXPECT_EQ(resource_error_count(), before + 3);
}

}  // namespace anygpu
