#include "util/env_vars.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>

#include "test_support.h"
#include "util/strings.h"

namespace anygpu {

namespace {

const EnvVariable& row(std::string_view name) {
  const EnvVariable* r = find_env_variable(name);
  EXPECT_NE(r, nullptr) << name;
  return *r;
}

std::string refusal(std::string_view name, std::string_view value) {
  auto v = parse_env_value(row(name), value);
  return v ? std::string("accepted") : v.error().message;
}

}  // namespace

TEST(EnvVars, TableIsWellFormed) {
  std::set<std::string_view> names;
  for (const auto& r : env_variables()) {
    SCOPED_TRACE(std::string(r.name));
    EXPECT_TRUE(names.insert(r.name).second) << "listed twice";
    EXPECT_TRUE(is_env_name(r.name));
    EXPECT_FALSE(r.accepted.empty());
    EXPECT_FALSE(r.meaning.empty());
    EXPECT_NE(r.readers, 0u);
    if (r.kind == EnvKind::integer) {
      EXPECT_LE(r.min, r.max);
    }
    if (r.kind == EnvKind::keyword) {
      EXPECT_FALSE(r.words.empty());
    }
    // What steers anygpu is read by the CLI or the C ABI, which check it at every start/call.
    if (r.steers) {
      EXPECT_NE(r.readers & (kEnvCli | kEnvCAbi), 0u);
    }
  }
  EXPECT_EQ(find_env_variable("ANYGPU_NOPE"), nullptr);
}

TEST(EnvVars, EmptyIsUnsetExceptForAnExplicitChoice) {
  auto root = parse_env_value(row("ANYGPU_ROOT"), "");
  ASSERT_TRUE(root);
  EXPECT_FALSE(*root);
  EXPECT_EQ(refusal("ANYGPU_LIBRARY", ""),
            "ANYGPU_LIBRARY=\"\": expected a path to libanygpu.so, or a file name the dynamic "
            "loader finds (set but blank: an error)");
}

TEST(EnvVars, Booleans) {
  for (const char* yes : {"1", "true", "TRUE", "Yes"}) {
    auto v = parse_env_value(row("ANYGPU_NO_LIBS"), yes);
    ASSERT_TRUE(v && *v) << yes;
    EXPECT_EQ((*v)->flag, true) << yes;
  }
  for (const char* no : {"0", "false", "No"}) {
    auto v = parse_env_value(row("ANYGPU_NO_LIBS"), no);
    ASSERT_TRUE(v && *v) << no;
    EXPECT_EQ((*v)->flag, false) << no;
  }
  for (const char* bad : {"maybe", "2", "on", " 1", "yes please"})
    EXPECT_EQ(
        refusal("ANYGPU_NO_LIBS", bad),
        cat({"ANYGPU_NO_LIBS=\"", bad, "\": expected 1, 0, true, false, yes or no (any case)"}));
}

TEST(EnvVars, IntegersInTheirRange) {
  auto ms = parse_env_value(row("ANYGPU_LIB_TIMEOUT_MS"), " 250\n");
  ASSERT_TRUE(ms && *ms);
  EXPECT_EQ((*ms)->number, 250u);
  for (const char* bad : {"0", "600001", "-5", "+5", "0x10", "1e3", "soon", "99999999999999999999"})
    EXPECT_EQ(refusal("ANYGPU_LIB_TIMEOUT_MS", bad),
              cat({"ANYGPU_LIB_TIMEOUT_MS=\"", bad, "\": expected milliseconds from 1 to 600000"}));
  EXPECT_EQ(refusal("SLURM_PROCID", "16777217"),
            "SLURM_PROCID=\"16777217\": expected a whole number from 0 to 16777216");
  EXPECT_EQ(refusal("MASTER_PORT", "65536"), "MASTER_PORT=\"65536\": expected 1-65535");
  auto job = parse_env_value(row("SLURM_JOB_ID"), "18446744073709551615");
  ASSERT_TRUE(job && *job);
  EXPECT_EQ((*job)->number, UINT64_MAX);
}

TEST(EnvVars, WordsNamesListsAndText) {
  EXPECT_EQ(refusal("ANYGPU_LOG", "debug"), "accepted");
  EXPECT_EQ(refusal("ANYGPU_LOG", "info"), "ANYGPU_LOG=\"info\": expected debug");
  EXPECT_EQ(refusal("ANYGPU_LOG", "DEBUG"), "ANYGPU_LOG=\"DEBUG\": expected debug");
  EXPECT_EQ(refusal("TORCHELASTIC_USE_AGENT_STORE", "False"), "accepted");
  EXPECT_NE(refusal("TORCHELASTIC_USE_AGENT_STORE", "true"), "accepted");
  EXPECT_EQ(refusal("ANYGPU_VENDOR", "amd-2.x_y"), "accepted");
  for (const char* bad : {"NVIDIA", "1nv", "nv dia", "nv;rm", "-nv"})
    EXPECT_NE(refusal("ANYGPU_VENDOR", bad), "accepted") << bad;
  EXPECT_EQ(refusal("ANYGPU_DEVICES", "0000:01:00.0, 0000:02:00.0,"), "accepted");
  EXPECT_NE(refusal("ANYGPU_DEVICES", "0000:01:00.0 0000:02:00.0"), "accepted");
  EXPECT_EQ(refusal("MASTER_ADDR", "node-1.example"), "accepted");
  EXPECT_NE(refusal("MASTER_ADDR", "node\x1b[2J"), "accepted");
  EXPECT_EQ(refusal("NO_COLOR", "\x01"), "accepted");
}

TEST(EnvVars, RefusalsEscapeControlCharacters) {
  std::string msg = refusal("ANYGPU_LOG", "x\x1b[31m\n");
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("\\x1b"), std::string::npos) << msg;
}

TEST(EnvVars, DirectoriesAndExecutables) {
  test::TempDir dir;
  std::string file = dir.path() + "/file";
  test::write_file(file, "#!/bin/sh\n");
  EXPECT_EQ(refusal("ANYGPU_ROOT", dir.path()), "accepted");
  EXPECT_EQ(refusal("ANYGPU_ROOT", file), cat({"ANYGPU_ROOT=\"", file, "\": not a directory"}));
  EXPECT_EQ(refusal("ANYGPU_ROOT", dir.path() + "/none"),
            cat({"ANYGPU_ROOT=\"", dir.path(),
                 "/none\": not a directory (No such file or "
                 "directory)"}));
  std::string expected =
      cat({"ANYGPU_WORKER=\"", file, "\": expected an absolute path to an executable file"});
  EXPECT_EQ(refusal("ANYGPU_WORKER", file), expected);  // not executable yet
  ::chmod(file.c_str(), 0755);
  EXPECT_EQ(refusal("ANYGPU_WORKER", file), "accepted");
  EXPECT_NE(refusal("ANYGPU_WORKER", "anygpu"), "accepted");    // relative
  EXPECT_NE(refusal("ANYGPU_WORKER", dir.path()), "accepted");  // a directory
}

TEST(EnvVars, SteeringVariablesAreCheckedFromTheProcessEnvironment) {
  ::setenv("ANYGPU_LOG", "verbose", 1);
  std::string refused;
  auto env = check_steering_env(&refused);
  ::unsetenv("ANYGPU_LOG");
  ASSERT_FALSE(env);
  EXPECT_EQ(refused, "ANYGPU_LOG");
  EXPECT_EQ(env.error().kind, ErrorKind::bad_input);
  EXPECT_TRUE(check_steering_env());
  // A variable only Python reads does not stop the CLI or the C ABI.
  ::setenv("ANYGPU_NUM_WORKERS", "many", 1);
  EXPECT_TRUE(check_steering_env());
  ::unsetenv("ANYGPU_NUM_WORKERS");
}

}  // namespace anygpu
