// The spawn helper with real processes: the environment and descriptors a child gets, output
// caps, exit statuses, and ends that take every descendant along.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "host/process_tree.h"
#include "host/spawn.h"
#include "test_support.h"
#include "util/strings.h"

namespace anygpu {
namespace {

using namespace std::chrono_literals;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Exited (a zombie nobody reaped yet counts) or gone: no longer running code.
bool ended(pid_t pid) {
  auto stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  auto st = parse_proc_stat(stat);
  return !st || st->state == 'Z' || st->state == 'X';
}

pid_t pid_in(const std::string& text) {
  auto v = parse_int(trim(first_line(text)));
  return v ? static_cast<pid_t>(*v) : 0;
}

SpawnSpec shell(const std::string& script) {
  SpawnSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.fds = {{1, ChildFd::capture()}};
  return s;
}

std::set<std::string> listed_fds(const SpawnSpec& spec) {
  auto run = run_to_completion(spec, 10s, 4096);
  EXPECT_TRUE(run) << run.error().message;
  std::set<std::string> out;
  if (run)
    for (auto line : split_lines(run->output[1]))
      if (!line.empty()) out.emplace(line);
  return out;
}

TEST(Spawn, TheEnvironmentIsExactlyTheOneGiven) {
  SpawnSpec s;
  s.argv = {"/usr/bin/env"};
  s.env = std::vector<std::string>{"A=1", "B=two words", "EMPTY="};
  s.fds = {{1, ChildFd::capture()}};
  auto run = run_to_completion(s, 10s, 4096);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->output[1], "A=1\nB=two words\nEMPTY=\n");
  EXPECT_TRUE(run->exit.success()) << describe(run->exit);
}

TEST(Spawn, OnlyThePlannedDescriptorsReachTheChild) {
  // A descriptor the caller left inheritable (no FD_CLOEXEC), as a host program might.
  UniqueFd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int leak = ::fcntl(null.get(), F_DUPFD, 50);
  ASSERT_GE(leak, 50);
  SpawnSpec s;
  s.argv = {"/bin/ls", "-1", "/proc/self/fd"};  // ls holds the listing open as the next number
  s.fds = {{1, ChildFd::capture()}};
  EXPECT_EQ(listed_fds(s), (std::set<std::string>{"0", "1", "2", "3"}));
  // Kept as execve keeps it when asked to: the listing does show what leaks.
  s.keep_inherited_fds = true;
  EXPECT_TRUE(listed_fds(s).count(std::to_string(leak)));
  ::close(leak);
}

TEST(Spawn, DescriptorsThatCrossEachOtherArriveWhereThePlanSays) {
  // The caller's 3 becomes the child's 4 and the other way round: neither dup2 may overwrite
  // the other's source.
  int a[2], b[2];
  ASSERT_EQ(::pipe(a), 0);
  ASSERT_EQ(::pipe(b), 0);
  // The pipes away from 3 and 4: with those free, pipe() returns them, and moving the write
  // ends there would close the read ends.
  for (int* end : {&a[0], &a[1], &b[0], &b[1]}) {
    int high = ::fcntl(*end, F_DUPFD_CLOEXEC, 100);
    ASSERT_GE(high, 100);
    ::close(*end);
    *end = high;
  }
  UniqueFd a_read(a[0]), b_read(b[0]);
  // Move the write ends to 3 and 4 exactly (whatever was there is restored afterwards).
  UniqueFd saved3(::fcntl(3, F_DUPFD_CLOEXEC, 100)), saved4(::fcntl(4, F_DUPFD_CLOEXEC, 100));
  ASSERT_EQ(::dup2(a[1], 3), 3);
  ASSERT_EQ(::dup2(b[1], 4), 4);
  ::close(a[1]);
  ::close(b[1]);
  SpawnSpec s;
  s.argv = {"/bin/sh", "-c", "echo to-three >&3; echo to-four >&4"};
  s.fds = {{3, ChildFd::from(4)}, {4, ChildFd::from(3)}};
  auto child = Child::spawn(s);
  ::close(3);
  ::close(4);
  if (saved3) ::dup2(saved3.get(), 3);
  if (saved4) ::dup2(saved4.get(), 4);
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_TRUE(child->wait(Child::Clock::now() + 10s).success());
  char buf[64] = {};
  ASSERT_GT(::read(a_read.get(), buf, sizeof buf - 1), 0);
  EXPECT_STREQ(buf, "to-four\n");  // fd 3 of the parent (pipe a) became the child's 4
  char buf2[64] = {};
  ASSERT_GT(::read(b_read.get(), buf2, sizeof buf2 - 1), 0);
  EXPECT_STREQ(buf2, "to-three\n");
}

TEST(Spawn, OutputBeyondTheCapIsReadAndDropped) {
  auto s = shell("head -c 300000 /dev/zero; echo done >&2");
  s.fds[2] = ChildFd::capture();
  auto run = run_to_completion(s, 10s, 1000);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->output[1].size(), 1000u);
  EXPECT_TRUE(run->truncated);
  EXPECT_EQ(run->output[2], "done\n");  // never blocked on the full pipe: it got this far
  EXPECT_FALSE(run->timed_out);
  EXPECT_TRUE(run->exit.success());
}

TEST(Spawn, ExitCodesAndSignalsAreTold) {
  auto code = run_to_completion(shell("exit 3"), 10s, 64);
  ASSERT_TRUE(code);
  EXPECT_EQ(code->exit.kind, ExitStatus::Kind::exited);
  EXPECT_EQ(code->exit.value, 3);
  auto sig = run_to_completion(shell("kill -SEGV $$"), 10s, 64);
  ASSERT_TRUE(sig);
  EXPECT_EQ(sig->exit.kind, ExitStatus::Kind::signaled);
  EXPECT_EQ(describe(sig->exit), "killed by SIGSEGV (signal 11)");
}

TEST(Spawn, NotFoundAndNotExecutableAreErrorsWithTheirErrno) {
  test::TempDir dir;
  SpawnSpec s;
  s.argv = {"anygpu-no-such-command"};
  s.search_path = "/nonexistent:" + dir.path();
  auto missing = Child::spawn(s);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().sys_errno, ENOENT);

  test::write_file(dir / "plain", "echo hi\n");  // no #! line: never handed to a shell
  ::chmod((dir / "plain").c_str(), 0755);
  s.argv = {"plain"};
  auto no_shebang = Child::spawn(s);
  ASSERT_FALSE(no_shebang);
  EXPECT_EQ(no_shebang.error().sys_errno, ENOEXEC);
  EXPECT_NE(no_shebang.error().message.find(dir / "plain"), std::string::npos);

  ::chmod((dir / "plain").c_str(), 0644);
  auto denied = Child::spawn(s);
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().sys_errno, EACCES);
}

TEST(Spawn, TheDeadlineEndsTheGrandchildrenToo) {
  // One grandchild stays in the child's group, one leaves it for a session of its own: only
  // the tree of parent links still finds the second.
  auto s = shell("sleep 100 & echo $!; setsid sleep 100 & echo $!; wait");
  auto start = Child::Clock::now();
  auto run = run_to_completion(s, 500ms, 4096);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->timed_out);
  EXPECT_LT(Child::Clock::now() - start, 5s);
  auto lines = split_lines(run->output[1]);
  ASSERT_GE(lines.size(), 2u) << run->output[1];
  for (auto line : lines) {
    pid_t pid = pid_in(std::string(line));
    ASSERT_GT(pid, 0) << line;
    // At once, not eventually: the wait returns only when the whole tree has ended.
    EXPECT_TRUE(ended(pid)) << "grandchild " << pid << " outlived the deadline";
    if (!ended(pid)) ::kill(pid, SIGKILL);
  }
}

TEST(Spawn, WhatAChildLeavesInItsGroupGoesWithIt) {
  // The child exits at once; its background sleeper holds stdout and would live on.
  auto run = run_to_completion(shell("sleep 100 & echo $!"), 10s, 4096);
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_FALSE(run->timed_out);
  pid_t pid = pid_in(run->output[1]);
  ASSERT_GT(pid, 0);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ended(pid);
    if (!gone) std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(gone) << "leftover " << pid << " survived its group";
  if (!gone) ::kill(pid, SIGKILL);
}

TEST(Spawn, TheParentDeathSignalFollowsTheSpawningThread) {
  pid_t pid = 0;
  std::thread([&] {
    SpawnSpec s;
    s.argv = {"/bin/sleep", "100"};
    s.parent_death_signal = SIGKILL;
    auto child = Child::spawn(s);
    ASSERT_TRUE(child) << child.error().message;
    pid = child->detach();  // kept running: only the thread's end may kill it
  }).join();
  ASSERT_GT(pid, 0);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << st;
}

TEST(Spawn, TheChildStartsWithDefaultSignalsAndNothingBlocked) {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  struct sigaction old {};
  ::sigaction(SIGUSR1, &ign, &old);
  sigset_t block, saved;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  ::pthread_sigmask(SIG_BLOCK, &block, &saved);
  // SigBlk and SigIgn of /proc/self/status, as the child sees them.
  auto s = shell("grep -E '^Sig(Blk|Ign)' /proc/self/status");
  auto fresh = run_to_completion(s, 10s, 4096);
  s.keep_ignored_signals = true;
  auto kept = run_to_completion(s, 10s, 4096);
  ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  ::sigaction(SIGUSR1, &old, nullptr);
  ASSERT_TRUE(fresh && kept);
  EXPECT_NE(fresh->output[1].find("SigBlk:\t0000000000000000"), std::string::npos)
      << fresh->output[1];
  // grep itself ignores nothing; sh may, so only SIGUSR1's bit (1 << 9) is looked at.
  auto ignored_mask = [](const std::string& text) {
    auto at = text.find("SigIgn:\t");
    return at == std::string::npos ? 0ull : std::stoull(text.substr(at + 8, 16), nullptr, 16);
  };
  EXPECT_EQ(ignored_mask(fresh->output[1]) & (1ull << (SIGUSR1 - 1)), 0u) << fresh->output[1];
  EXPECT_NE(ignored_mask(kept->output[1]) & (1ull << (SIGUSR1 - 1)), 0u) << kept->output[1];
}

TEST(Spawn, ADestroyedHandleEndsItsChild) {
  pid_t pid = 0;
  {
    SpawnSpec s;
    s.argv = {"/bin/sleep", "100"};
    auto child = Child::spawn(s);
    ASSERT_TRUE(child) << child.error().message;
    pid = child->pid();
  }
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);  // already reaped
  EXPECT_TRUE(ended(pid));
}

TEST(ProcStat, ParsesTheKernelsLineAndRefusesMalformedOnes) {
  auto self = parse_proc_stat(slurp("/proc/self/stat"));
  ASSERT_TRUE(self);
  EXPECT_EQ(self->pid, ::getpid());
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_EQ(self->pgid, ::getpgrp());
  EXPECT_EQ(self->state, 'R');
  EXPECT_GT(self->start, 0u);

  // A command name may hold spaces and parentheses: fields are read after the last ')'.
  auto odd = parse_proc_stat("42 (a) b (c) S 7 9 9 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 1234 0");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->pid, 42);
  EXPECT_EQ(odd->ppid, 7);
  EXPECT_EQ(odd->pgid, 9);
  EXPECT_EQ(odd->start, 1234u);

  for (const char* bad :
       {"", "42", "42 (x", "42 (x) S 1 1", "x (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
        "42 (a) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
        "42 (a) _ 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
        "42 (a) S -1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
        "42 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x",
        "-3 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
        "42 (a)S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",
        "99999999999 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"})
    EXPECT_FALSE(parse_proc_stat(bad)) << bad;
}

TEST(ProcessTree, FindsDescendantsThatLeftTheGroup) {
  SpawnSpec s = shell("setsid sleep 100 & echo $!; wait");
  auto child = Child::spawn(s);
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_FALSE(child->collect(Child::Clock::now() + 200ms, 4096));  // the sleeper holds stdout
  pid_t sleeper = pid_in(child->output(1));
  ASSERT_GT(sleeper, 0) << child->output(1);
  bool found = false;  // once setsid has run
  for (int i = 0; i < 500 && !found; ++i) {
    for (const auto& p : process_tree(child->pid(), child->pgid()))
      found = found || (p.pid == sleeper && p.pgid == sleeper);
    if (!found) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(found);
  child->terminate(0ms);
  EXPECT_TRUE(ended(sleeper));
}

}  // namespace
}  // namespace anygpu
