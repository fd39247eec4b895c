// The CDI hooks: the container root from the state a runtime passes (and malformed states),
// the loader cache rebuilt inside a root, /dev/char links, and roots whose /etc or /dev/char
// are links out of the root (refused, nothing written outside).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "container/cdi_hooks.h"
#include "host/ld_cache.h"
#include "host/process_tree.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (auto* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

// Exited (a zombie nobody reaped yet counts) or gone.
bool ended(const std::string& pid_text) {
  auto pid = parse_int(trim(pid_text));
  if (!pid) return false;
  auto st = parse_proc_stat(read_all("/proc/" + std::to_string(*pid) + "/stat"));
  return !st || st->state == 'Z' || st->state == 'X';
}

Result<std::string> root_of(const std::string& state, const std::string& config) {
  return oci_container_root(state, [&](const std::string& path) -> Result<std::string> {
    if (path != "/b/config.json") return bad_input("unexpected " + path);
    return config;
  });
}

}  // namespace

TEST(CdiHooks, ContainerRootFromTheState) {
  const std::string state = R"({"ociVersion":"1.0.2","id":"c","status":"creating","pid":7,)"
                            R"("bundle":"/b","annotations":{}})";
  EXPECT_EQ(*root_of(state, R"({"root":{"path":"rootfs"}})"), "/b/rootfs");
  EXPECT_EQ(*root_of(state, R"({"root":{"path":"/var/lib/c/merged/"}})"), "/var/lib/c/merged");
  for (const auto& [s, c] : std::vector<std::pair<std::string, std::string>>{
           {"not json", R"({"root":{"path":"r"}})"},
           {"[]", R"({"root":{"path":"r"}})"},
           {R"({"id":"c"})", R"({"root":{"path":"r"}})"},
           {R"({"bundle":"relative"})", R"({"root":{"path":"r"}})"},
           {R"({"bundle":"/b/../etc"})", R"({"root":{"path":"r"}})"},
           {R"({"bundle":7})", R"({"root":{"path":"r"}})"},
           {state, "{"},
           {state, R"({"root":{}})"},
           {state, R"({"root":{"path":""}})"},
           {state, R"({"root":{"path":"../../etc"}})"},
           {state, R"({"root":"r"})"}}) {
    auto r = root_of(s, c);
    ASSERT_FALSE(r) << s << " / " << c;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_FALSE(r.error().message.empty());
  }
}

TEST(CdiHooks, UpdateLdcacheListsTheFoldersInTheContainersCache) {
  auto ldconfig = find_ldconfig();
  ASSERT_TRUE(ldconfig) << "ldconfig (libc-bin) is part of every Debian system";
  test::TempDir tmp;
  auto root = tmp / "rootfs";
  auto cmd = cat({"mkdir -p ", root, "/usr/local/dcmi && cc -shared -fPIC -o ", root,
                  "/usr/local/dcmi/libdcmi.so -Wl,-soname,libdcmi.so -DENTRY=dcmi_init "
                  "-DANSWER=1 ",
                  ANYGPU_SOURCE_DIR, "/tests/e2e/driver/mock_driver_lib.c"});
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto done = update_container_ldcache(root, {"/usr/local/dcmi"}, *ldconfig);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_NE(read_all(root + std::string(kLdConfFile)).find("\n/usr/local/dcmi\n"),
            std::string::npos);
  auto cache = parse_ld_cache(read_all(root + "/etc/ld.so.cache"), "cache");
  ASSERT_TRUE(cache) << cache.error().message;
  auto* e = ld_cache_lookup(*cache, "libdcmi.so", kNativeElfMachine, kNativeElf64);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->path, "/usr/local/dcmi/libdcmi.so");  // the container's path, not the host's
  // Running again replaces the file; no temporary file is left behind.
  ASSERT_TRUE(update_container_ldcache(root, {"/usr/local/dcmi"}, *ldconfig));
  auto left = entries(root + "/etc/ld.so.conf.d");
  EXPECT_EQ(left, std::vector<std::string>{"00-anygpu-driver.conf"});
  EXPECT_EQ(entries(root + "/usr/local/dcmi"), std::vector<std::string>{"libdcmi.so"});  // -X
  auto bad = update_container_ldcache(root, {"/usr/../etc"}, *ldconfig);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::bad_input);
}

TEST(CdiHooks, LinksOutOfTheRootAreNotFollowed) {
  auto ldconfig = find_ldconfig();
  ASSERT_TRUE(ldconfig);
  test::TempDir tmp;
  auto root = tmp / "rootfs", outside = tmp / "outside";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/etc").c_str()), 0);
  auto r = update_container_ldcache(root, {"/usr/lib"}, *ldconfig);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
  EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos) << r.error().message;
  EXPECT_TRUE(entries(outside).empty());
  ASSERT_EQ(::mkdir((root + "/dev").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/dev/char").c_str()), 0);
  ASSERT_EQ(::mknod((root + "/dev/nvidia0").c_str(), S_IFCHR | 0666, makedev(195, 0)), 0);
  auto links = create_dev_char_links(root);
  ASSERT_FALSE(links);
  EXPECT_NE(links.error().message.find("symbolic link"), std::string::npos)
      << links.error().message;
  EXPECT_TRUE(entries(outside).empty());
}

TEST(CdiHooks, DevCharLinksForTheContainersNodes) {
  test::TempDir tmp;
  auto root = tmp / "rootfs";
  ASSERT_EQ(std::system(cat({"mkdir -p ", root, "/dev/dri"}).c_str()), 0);
  // The test suite runs as root (Podman and mknod tests need it).
  ASSERT_EQ(::mknod((root + "/dev/nvidia0").c_str(), S_IFCHR | 0666, makedev(195, 0)), 0);
  ASSERT_EQ(::mknod((root + "/dev/dri/renderD128").c_str(), S_IFCHR | 0666, makedev(226, 128)), 0);
  test::write_file(root + "/dev/notanode", "x");
  auto made = create_dev_char_links(root);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_EQ(*made, 2);
  char buf[64] = {};
  ASSERT_GT(::readlink((root + "/dev/char/195:0").c_str(), buf, sizeof buf - 1), 0);
  EXPECT_STREQ(buf, "../nvidia0");
  std::fill(std::begin(buf), std::end(buf), 0);
  ASSERT_GT(::readlink((root + "/dev/char/226:128").c_str(), buf, sizeof buf - 1), 0);
  EXPECT_STREQ(buf, "../dri/renderD128");
  EXPECT_EQ(*create_dev_char_links(root), 0);  // existing links are kept
}

// A fake ldconfig on a test path. One that never finishes, having started a helper in a
// session of its own, is killed at the timeout together with the helper, and the error names
// the command; one that fails is reported with what it said.
TEST(CdiHooks, AnLdconfigThatHangsIsKilledWithItsHelperAndNamed) {
  test::TempDir tmp;
  auto root = tmp / "rootfs";
  ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
  auto fake = tmp / "ldconfig";
  auto pidfile = tmp / "helper.pid";
  test::write_file(fake,
                   "#!/bin/sh\nsetsid sleep 300 &\necho $! > " + pidfile + "\nexec sleep 300\n");
  ::chmod(fake.c_str(), 0755);
  auto start = std::chrono::steady_clock::now();
  auto r = update_container_ldcache(root, {"/usr/lib"}, fake, std::chrono::milliseconds(1000));
  ASSERT_FALSE(r);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_NE(r.error().message.find(fake + " -r " + root + ": did not finish within 1000 ms"),
            std::string::npos)
      << r.error().message;
  auto helper = read_all(pidfile);
  ASSERT_FALSE(helper.empty());
  EXPECT_TRUE(ended(helper)) << "the helper " << helper << " outlived the killed ldconfig";

  test::write_file(fake, "#!/bin/sh\necho 'ldconfig: cannot open \\033[31m' >&2\nexit 1\n");
  auto failed = update_container_ldcache(root, {"/usr/lib"}, fake);
  ASSERT_FALSE(failed);
  EXPECT_NE(
      failed.error().message.find(fake + " -r " + root +
                                  " failed (exited with code 1): ldconfig: cannot open \\x1b[31m"),
      std::string::npos)
      << failed.error().message;
}

}  // namespace anygpu
