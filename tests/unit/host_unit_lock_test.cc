// host/unit_lock.h: lock keys and file names, where the lock directory is and what is refused
// there, flock semantics (a second open file description is refused, a closed one releases),
// and the /proc/locks reader that names holders. app/locked_select.h: --wait durations.
#include "host/unit_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app/locked_select.h"
#include "select/accelerator_config.h"
#include "test_support.h"

namespace anygpu {

namespace {

using test::make_symlink;
using test::TempDir;
using test::write_file;

constexpr uid_t kNobody = 65534;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

LockDirectory override_dir(const std::string& path) {
  auto d = lock_directory({{"ANYGPU_LOCK_DIR", path}}, ::geteuid());
  EXPECT_TRUE(d) << d.error().message;
  return d ? *d : LockDirectory{};
}

std::string open_error(const LockDirectory& d, bool create = true) {
  auto fd = open_lock_directory(d, create, ::geteuid());
  return fd ? std::string() : fd.error().message;
}

TEST(UnitLockKey, DevicesAndPartitionsAsDetectNamesThem) {
  EXPECT_EQ(unit_lock_key("0000:18:00.0"), "0000:18:00.0");
  EXPECT_EQ(unit_lock_key("0000:C1:00.0"), "0000:c1:00.0");
  EXPECT_EQ(unit_lock_key("0000:05:00.0", 3), "0000:05:00.0/3");
  EXPECT_EQ(lock_file_name("0000:18:00.0"), "0000:18:00.0.lock");
  EXPECT_EQ(lock_file_name("0000:05:00.0/3"), "0000:05:00.0@3.lock");
  EXPECT_EQ(key_of_lock_file("0000:05:00.0@3.lock"), "0000:05:00.0/3");
  EXPECT_EQ(key_of_lock_file("10000:e1:00.0.lock"), "10000:e1:00.0");  // a VMD domain
}

TEST(UnitLockKey, AnythingElseInTheDirectoryIsNoLockFile) {
  for (const char* name :
       {"0000:18:00.0", "0000:18:00.0.lock.tmp", "x.lock", ".lock", "0000:18:00.8.lock",
        "0000:18:0.0.lock", "0000:C1:00.0.lock", "000:18:00.0.lock", "0000:18:00.0@.lock",
        "0000:18:00.0@03.lock", "0000:18:00.0@12345.lock", "0000:18:00.0@-1.lock", "../x.lock",
        "0000:18:00.0@1@2.lock"})
    EXPECT_FALSE(key_of_lock_file(name)) << name;
  EXPECT_TRUE(valid_unit_lock_key("0000:18:00.0/9999"));
  EXPECT_FALSE(valid_unit_lock_key("0000:18:00.0/"));
}

TEST(LockDirectoryPlace, RootUserOverrideAndFallback) {
  auto root = lock_directory({{"XDG_RUNTIME_DIR", "/run/user/1000"}}, 0);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->path, "/run/anygpu/locks");
  EXPECT_EQ(root->mode, 0755u);
  auto user = lock_directory({{"XDG_RUNTIME_DIR", "/run/user/1000"}}, 1000);
  ASSERT_TRUE(user);
  EXPECT_EQ(user->path, "/run/user/1000/anygpu/locks");
  EXPECT_EQ(user->mode, 0700u);
  // No session directory (and none at /run/user/UID owned by this uid): a private /tmp one.
  auto bare = lock_directory({{"XDG_RUNTIME_DIR", "relative"}}, 4242424);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->path, "/tmp/anygpu-4242424/locks");
  auto told = lock_directory({{"ANYGPU_LOCK_DIR", "/srv/locks/"}}, 1000);
  ASSERT_TRUE(told);
  EXPECT_EQ(told->path, "/srv/locks");
  EXPECT_EQ(told->base, "/srv");
  for (const char* bad : {"relative/locks", "/"}) {
    auto d = lock_directory({{"ANYGPU_LOCK_DIR", bad}}, 1000);
    EXPECT_FALSE(d) << bad;
  }
}

TEST(LockDirectoryChecks, CreatedPrivateAndAbsentIsNoLocks) {
  TempDir tmp;
  LockDirectory d{tmp / "run/anygpu/locks", tmp / "run", {"anygpu", "locks"}, 0700, "test"};
  ::mkdir((tmp / "run").c_str(), 0755);
  auto absent = open_lock_directory(d, false, ::geteuid());
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent);
  EXPECT_EQ(open_error(d), "");
  struct stat st {};
  ASSERT_EQ(::stat(d.path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(LockDirectoryChecks, SymlinkForeignOwnerAndWorldWritableAreRefused) {
  TempDir tmp;
  ::mkdir((tmp / "real").c_str(), 0700);
  make_symlink(tmp / "real", tmp / "link");
  EXPECT_NE(open_error(override_dir(tmp / "link")).find("it is a symbolic link"),
            std::string::npos);

  ::mkdir((tmp / "open").c_str(), 0700);
  ::chmod((tmp / "open").c_str(), 0777);
  EXPECT_NE(open_error(override_dir(tmp / "open")).find("writable by others (mode 0777)"),
            std::string::npos);
  ::chmod((tmp / "open").c_str(), 01777);  // sticky, as /tmp: others cannot replace our files
  EXPECT_EQ(open_error(override_dir(tmp / "open")), "");

  ::mkdir((tmp / "theirs").c_str(), 0700);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown((tmp / "theirs").c_str(), kNobody, kNobody), 0);
    EXPECT_NE(open_error(override_dir(tmp / "theirs")).find("owned by uid 65534"),
              std::string::npos);
  }
  write_file(tmp / "file", "x");
  EXPECT_NE(open_error(override_dir(tmp / "file")).find("not a directory"), std::string::npos);
  // The parent is judged too: a world-writable one lets others swap the directory.
  ::mkdir((tmp / "loose").c_str(), 0777);
  ::chmod((tmp / "loose").c_str(), 0777);
  ::mkdir((tmp / "loose/locks").c_str(), 0700);
  EXPECT_NE(open_error(override_dir(tmp / "loose/locks")).find("writable by others"),
            std::string::npos);
}

class UnitLocks : public ::testing::Test {
 protected:
  void SetUp() override {
    auto fd = open_lock_directory(override_dir(tmp.path()), true, ::geteuid());
    ASSERT_TRUE(fd) << fd.error().message;
    dir = std::move(*fd);
  }
  Result<std::optional<UnitLock>> lock(const std::string& key) {
    return try_lock_unit(dir.get(), tmp.path(), key, ::geteuid());
  }
  TempDir tmp;
  UniqueFd dir;
};

TEST_F(UnitLocks, SecondHolderRefusedUntilTheFirstCloses) {
  auto first = lock("0000:18:00.0");
  ASSERT_TRUE(first && *first);
  auto second = lock("0000:18:00.0");
  ASSERT_TRUE(second);
  EXPECT_FALSE(*second);
  auto other = lock("0000:2a:00.0");
  ASSERT_TRUE(other && *other);
  // The holder's pid is recorded for a reader without /proc/locks.
  auto h = holder_of(dir.get(), "0000:18:00.0", {});
  EXPECT_EQ(h.pid, ::getpid());
  (*first)->fd.reset();
  auto again = lock("0000:18:00.0");
  ASSERT_TRUE(again);
  EXPECT_TRUE(*again);
}

TEST_F(UnitLocks, CloseOnExecUntilKept) {
  auto l = lock("0000:18:00.0");
  ASSERT_TRUE(l && *l);
  EXPECT_NE(::fcntl((*l)->fd.get(), F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_TRUE(keep_across_exec(**l));
  EXPECT_EQ(::fcntl((*l)->fd.get(), F_GETFD) & FD_CLOEXEC, 0);
}

TEST_F(UnitLocks, LinksAndOtherFilesAreNeverWrittenThrough) {
  write_file(tmp / "victim", "keep me\n");
  make_symlink(tmp / "victim", tmp / "0000:18:00.0.lock");
  auto l = lock("0000:18:00.0");
  ASSERT_FALSE(l);
  EXPECT_NE(l.error().message.find("symbolic link"), std::string::npos);
  // A hard link to another file: locked, but never truncated or rewritten.
  ASSERT_EQ(::link((tmp / "victim").c_str(), (tmp / "0000:2a:00.0.lock").c_str()), 0);
  auto hard = lock("0000:2a:00.0");
  ASSERT_TRUE(hard && *hard);
  EXPECT_EQ(read_file(tmp / "victim"), "keep me\n");
  ASSERT_EQ(::mkfifo((tmp / "0000:3a:00.0.lock").c_str(), 0600), 0);
  auto fifo = lock("0000:3a:00.0");
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos);
}

TEST_F(UnitLocks, HoldersFromProcLocksByInode) {
  auto l = lock("0000:18:00.0");
  ASSERT_TRUE(l && *l);
  write_file(tmp / "0000:2a:00.0.lock", "999999\n");  // a stale record: nobody holds it
  struct stat st {};
  ASSERT_EQ(::fstat((*l)->fd.get(), &st), 0);
  char line[160];
  std::snprintf(line, sizeof line,
                "1: FLOCK  ADVISORY  WRITE 4242 %02x:%02x:%llu 0 EOF\n"
                "1: -> FLOCK  ADVISORY  WRITE 4343 %02x:%02x:%llu 0 EOF\n"
                "2: POSIX  ADVISORY  WRITE 4444 %02x:%02x:%llu 0 EOF\n",
                major(st.st_dev), minor(st.st_dev), static_cast<unsigned long long>(st.st_ino),
                major(st.st_dev), minor(st.st_dev), static_cast<unsigned long long>(st.st_ino),
                major(st.st_dev), minor(st.st_dev), static_cast<unsigned long long>(st.st_ino));
  auto holders = current_lock_holders(dir.get(), line);
  ASSERT_EQ(holders.size(), 1u);
  EXPECT_EQ(holders.at("0000:18:00.0").pid, 4242);
  // This machine's own /proc/locks names this process.
  auto real = read_lock_holders(dir.get());
  ASSERT_TRUE(real.count("0000:18:00.0"));
  EXPECT_EQ(real.at("0000:18:00.0").pid, ::getpid());
  EXPECT_FALSE(real.count("0000:2a:00.0"));
}

TEST(ProcLocks, WellFormedLinesOnly) {
  auto l = parse_proc_locks(
      "1: FLOCK  ADVISORY  WRITE 12 fe:01:345 0 EOF\n"
      "2: -> FLOCK  ADVISORY  WRITE 13 fe:01:345 0 EOF\n"
      "3: OFDLCK ADVISORY  READ  -1 00:06:7 0 EOF\n"
      "4: FLOCK  ADVISORY  WRITE 12 fe:01\n"            // truncated
      "x: FLOCK  ADVISORY  WRITE 12 fe:01:345 0 EOF\n"  // no number
      "5: FLOCK  ADVISORY  WRITE 12 zz:01:345 0 EOF\n"  // not hex
      "6: FLOCK  ADVISORY  WRITE 1a fe:01:345 0 EOF\n"  // pid not a number
      "7: FLOCK  ADVISORY  WRITE 12 fe:01:345 0 EOF extra\n");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].pid, 12);
  EXPECT_EQ(l[0].dev_major, 0xfeu);
  EXPECT_EQ(l[0].inode, 345u);
  EXPECT_TRUE(l[0].write);
  EXPECT_TRUE(l[1].blocked);
  EXPECT_EQ(l[2].kind, "OFDLCK");
  EXPECT_EQ(l[2].pid, -1);
  EXPECT_TRUE(parse_proc_locks("").empty());
}

TEST(WaitDuration, UnitsAndRefusals) {
  using std::chrono::milliseconds;
  EXPECT_EQ(parse_wait_duration("")->has_value(), false);
  EXPECT_EQ(**parse_wait_duration("90"), milliseconds(90000));
  EXPECT_EQ(**parse_wait_duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(**parse_wait_duration("5m"), milliseconds(300000));
  EXPECT_EQ(**parse_wait_duration("2h"), milliseconds(7200000));
  EXPECT_EQ(**parse_wait_duration("0"), milliseconds(0));
  for (const char* bad : {"-1", "m", "5d", "nan", "inf", "1e9h", "5 m", "x"})
    EXPECT_FALSE(parse_wait_duration(bad)) << bad;
}

// A run of partitions: each partition's key exclusively, its device's key shared (so siblings
// share the device, and a run holding the device whole shares nothing with them).
SelectOutcome outcome_on(const std::string& fixture, const std::string& config_text) {
  SelectOutcome o;
  o.inventory = test::fixture_inventory(fixture);
  auto c = parse_accelerator_config(config_text, "accelerator-config.yaml");
  EXPECT_TRUE(c) << c.error().message;
  o.config = *c;
  auto s = select_devices(o.inventory, o.config, o.inputs);
  EXPECT_TRUE(s) << s.error().message;
  o.selection = *s;
  return o;
}

TEST(PartitionLocks, APartitionRunLocksItsKeyAndSharesItsDevice) {
  auto o = outcome_on("mi300x-8x-cpx", "devices: [0:1, 1:0]\n");
  auto plan = selection_lock_plan(*o.selection);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0], std::make_pair(std::string("0000:05:00.0"), LockMode::shared));
  EXPECT_EQ(plan[1], std::make_pair(std::string("0000:05:00.0/1"), LockMode::exclusive));
  EXPECT_EQ(plan[2], std::make_pair(std::string("0000:27:00.0"), LockMode::shared));
  EXPECT_EQ(plan[3], std::make_pair(std::string("0000:27:00.0/0"), LockMode::exclusive));
  EXPECT_EQ(selection_lock_keys(*o.selection),
            (std::vector<std::string>{"0000:05:00.0/1", "0000:27:00.0/0"}));
}

TEST(PartitionLocks, TwoRunsNeverShareAUnitNorADeviceAndItsPartitions) {
  TempDir tmp;
  auto dir = override_dir(tmp.path());
  LockWait no_wait;
  auto first =
      lock_selection(outcome_on("mi300x-8x-cpx", "devices: [0:1]\n"), dir, no_wait, ::geteuid());
  ASSERT_TRUE(first && first->locked) << (first ? first->busy : first.error().message);
  // A count chooses around the held partition, on the same device (its key is only shared).
  auto second =
      lock_selection(outcome_on("mi300x-8x-cpx", "devices: 2\n"), dir, no_wait, ::geteuid());
  ASSERT_TRUE(second && second->locked) << (second ? second->busy : second.error().message);
  EXPECT_EQ(selection_lock_keys(second->locked->selection),
            (std::vector<std::string>{"0000:05:00.0/0", "0000:05:00.0/2"}));
  // The held partition named again: busy, naming it.
  auto again =
      lock_selection(outcome_on("mi300x-8x-cpx", "devices: [0:1]\n"), dir, no_wait, ::geteuid());
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->locked);
  EXPECT_NE(again->busy.find("0000:05:00.0/1"), std::string::npos) << again->busy;
  // A run that holds device 0000:27:00.0 whole (its discovery saw it unpartitioned) keeps
  // every partition of it from the others, and is kept from it while they hold one.
  auto fd = open_lock_directory(dir, false, ::geteuid());
  ASSERT_TRUE(fd && *fd);
  auto whole = try_lock_unit(fd->get(), dir.path, "0000:27:00.0", ::geteuid());
  ASSERT_TRUE(whole && *whole);
  auto blocked =
      lock_selection(outcome_on("mi300x-8x-cpx", "devices: [1:4]\n"), dir, no_wait, ::geteuid());
  ASSERT_TRUE(blocked);
  EXPECT_FALSE(blocked->locked);
  EXPECT_NE(blocked->busy.find("0000:27:00.0"), std::string::npos) << blocked->busy;
  auto whole_05 = try_lock_unit(fd->get(), dir.path, "0000:05:00.0", ::geteuid());
  ASSERT_TRUE(whole_05);
  EXPECT_FALSE(*whole_05);  // partitions of it are held
  // Released partitions free the device.
  first->locked->locks.clear();
  second->locked->locks.clear();
  auto freed = try_lock_unit(fd->get(), dir.path, "0000:05:00.0", ::geteuid());
  ASSERT_TRUE(freed);
  EXPECT_TRUE(*freed);
}

TEST_F(UnitLocks, SharedHoldersAreReadAsShared) {
  auto l = try_lock_unit(dir.get(), tmp.path(), "0000:18:00.0", ::geteuid(), LockMode::shared);
  ASSERT_TRUE(l && *l);
  auto other = try_lock_unit(dir.get(), tmp.path(), "0000:18:00.0", ::geteuid(), LockMode::shared);
  ASSERT_TRUE(other && *other);
  auto exclusive = lock("0000:18:00.0");
  ASSERT_TRUE(exclusive);
  EXPECT_FALSE(*exclusive);
  auto holders = read_lock_holders(dir.get());
  ASSERT_TRUE(holders.count("0000:18:00.0"));
  EXPECT_TRUE(holders.at("0000:18:00.0").shared);
  // No pid is written for a shared lock (it has several holders).
  EXPECT_EQ(read_file(tmp / "0000:18:00.0.lock"), "");
}

}  // namespace

}  // namespace anygpu
