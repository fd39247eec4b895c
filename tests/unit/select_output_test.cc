// `anygpu select` output: shell (eval round trip), dotenv, json; the CLI's exit codes and -v;
// the C ABI's anygpu_select_json.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>

#include <array>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "anygpu.h"
#include "select/render.h"
#include "select/select.h"
#include "test_support.h"

namespace anygpu {

namespace {

struct Run {
  int rc = -1;
  std::string out;
};

// Runs a shell command line; stdout captured, stderr captured when `err` is given.
Run sh(const std::string& command) {
  Run r;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string q(const std::string& s) {
  return shell_quote(s);
}

std::string anygpu(const std::string& args) {
  return "env -u LOCAL_WORLD_SIZE " + q(test::anygpu_binary()) + " " + args;
}

// NAME=VALUE lines of `env -0` output after eval'ing `script`.
std::map<std::string, std::string> eval_env(const std::string& script_file) {
  auto r = sh("env -i /bin/bash -c 'eval \"$(cat " + script_file + ")\"; env -0'");
  EXPECT_EQ(r.rc, 0);
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start < r.out.size()) {
    auto end = r.out.find('\0', start);
    if (end == std::string::npos) end = r.out.size();
    auto entry = r.out.substr(start, end - start);
    auto eq = entry.find('=');
    if (eq != std::string::npos) out[entry.substr(0, eq)] = entry.substr(eq + 1);
    start = end + 1;
  }
  return out;
}

Selection h100_two() {
  auto c = parse_accelerator_config("devices: 2\n", "accelerator-config.yaml");
  auto s = select_devices(test::probe_root(test::fixture_host("h100-8x")), *c, {});
  EXPECT_TRUE(s.ok());
  return *s;
}

const char* kWeird[] = {"plain",
                        "with spaces  and\ttabs",
                        "it's \"quoted\"",
                        "$HOME and ${PATH} and $(echo pwned) and `echo pwned`",
                        "back\\slash \\n \\'",
                        "new\nline",
                        "'",
                        "''",
                        "*?[glob]; | & > <",
                        "-n",
                        "",
                        "ünïcødé ✓"};

}  // namespace

TEST(SelectOutput, ShellQuoteSurvivesEval) {
  test::TempDir dir;
  std::string script;
  int i = 0;
  for (const char* v : kWeird) script += "export WEIRD_" + std::to_string(i++) + "=" + q(v) + "\n";
  test::write_file(dir / "env.sh", script);
  auto env = eval_env(dir / "env.sh");
  i = 0;
  for (const char* v : kWeird) EXPECT_EQ(env["WEIRD_" + std::to_string(i++)], v) << v;
  EXPECT_EQ(q("0000:18:00.0,0000:2a:00.0"), "0000:18:00.0,0000:2a:00.0");  // bare when safe
  EXPECT_EQ(q("a b"), "'a b'");
  EXPECT_EQ(q("it's"), "'it'\\''s'");
  EXPECT_EQ(q(""), "''");
}

TEST(SelectOutput, ShellOutputRoundTripsThroughEval) {
  auto s = h100_two();
  // A value with spaces, quotes and $ rides along to prove the whole output is eval-safe.
  s.env.emplace_back("ANYGPU_TEST_WEIRD", "a 'b' \"c\" $d `e`");
  auto text = selection_to_shell(s);
  EXPECT_EQ(text.rfind("export ANYGPU_VENDOR=nvidia ANYGPU_BACKEND=cuda ANYGPU_TORCH_DEVICE=cuda "
                       "ANYGPU_DIST_BACKEND=nccl\n"
                       "export ANYGPU_DEVICES=0000:18:00.0,0000:2a:00.0 ANYGPU_NUM_WORKERS=56\n"
                       "export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1",
                       0),
            0u)
      << text;
  test::TempDir dir;
  test::write_file(dir / "select.sh", text);
  auto env = eval_env(dir / "select.sh");
  for (const auto& [k, v] : s.env) EXPECT_EQ(env[k], v) << k;
}

TEST(SelectOutput, Dotenv) {
  auto s = h100_two();
  auto text = selection_to_dotenv(s);
  EXPECT_NE(text.find("ANYGPU_VENDOR=nvidia\n"), std::string::npos);
  EXPECT_NE(text.find("CUDA_VISIBLE_DEVICES=0,1\n"), std::string::npos);
  EXPECT_NE(text.find("ANYGPU_DEVICES=0000:18:00.0,0000:2a:00.0\n"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), static_cast<long>(s.env.size()));
  EXPECT_EQ(dotenv_quote("a b"), "'a b'");
  EXPECT_EQ(dotenv_quote("it's $x"), "\"it's \\$x\"");
  EXPECT_EQ(dotenv_quote(""), "''");
}

TEST(SelectOutput, Json) {
  auto j = selection_to_json(h100_two());
  EXPECT_EQ(j["schema"], "anygpu.selection/v1");
  EXPECT_EQ(j["vendor"], "nvidia");
  EXPECT_EQ(j["backend"], "cuda");
  EXPECT_EQ(j["devices"], nlohmann::ordered_json::parse(R"(["0000:18:00.0","0000:2a:00.0"])"));
  EXPECT_EQ(j["env"]["CUDA_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(j["env"]["ANYGPU_NUM_WORKERS"], "56");
  auto keys = std::vector<std::string>{};
  for (auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ((std::vector<std::string>(keys.begin(), keys.begin() + 5)),
            (std::vector<std::string>{"schema", "vendor", "backend", "devices", "env"}));
}

TEST(SelectCli, FormatsAndExitCodes) {
  auto h100 = q(test::fixture_host("h100-8x"));
  test::TempDir dir;
  test::write_file(dir / "two.yaml", "devices: 2\n");
  auto shell = sh("cd " + q(dir.path()) + " && " +
                  anygpu("--root " + h100 + " --no-libs select --config two.yaml"));
  EXPECT_EQ(shell.rc, 0);
  EXPECT_NE(shell.out.find("CUDA_VISIBLE_DEVICES=0,1"), std::string::npos) << shell.out;
  test::write_file(dir / "out.sh", shell.out);
  auto env = eval_env(dir / "out.sh");
  EXPECT_EQ(env["ANYGPU_DEVICES"], "0000:18:00.0,0000:2a:00.0");
  EXPECT_EQ(env["CUDA_DEVICE_ORDER"], "PCI_BUS_ID");

  auto json =
      sh(anygpu("--root " + h100 + " --no-libs --json select --config " + q(dir / "two.yaml")));
  EXPECT_EQ(json.rc, 0);
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["schema"], "anygpu.selection/v1");
  EXPECT_EQ(j["devices"].size(), 2u);
  auto json2 = sh(
      anygpu("--root " + h100 + " --no-libs select --format json --config " + q(dir / "two.yaml")));
  EXPECT_EQ(nlohmann::json::parse(json2.out), j);

  auto dotenv = sh(anygpu("--root " + h100 +
                          " --no-libs select --format dotenv --nproc-per-node 8 "
                          "--config " +
                          q(dir / "two.yaml")));
  EXPECT_EQ(dotenv.rc, 0);
  EXPECT_NE(dotenv.out.find("ANYGPU_NUM_WORKERS=14\n"), std::string::npos) << dotenv.out;

  // -v explains on stderr; stdout stays the environment.
  auto verbose = sh(anygpu("--root " + h100 + " --no-libs -v select --config " +
                           q(dir / "two.yaml") + " 2>&1 >/dev/null"));
  EXPECT_EQ(verbose.rc, 0);
  EXPECT_NE(verbose.out.find("share a NUMA node"), std::string::npos) << verbose.out;
  EXPECT_NE(verbose.out.find("nvidia 1 (0000:2a:00.0)"), std::string::npos) << verbose.out;

  // Absent default file: backend auto, from the current directory.
  auto absent = sh("cd " + q(dir.path()) + " && " +
                   anygpu("--root " + q(test::fixture_host("cloud-vm-none")) + " select"));
  EXPECT_EQ(absent.rc, 0);
  EXPECT_NE(absent.out.find("ANYGPU_TORCH_DEVICE=cpu"), std::string::npos) << absent.out;
  EXPECT_NE(absent.out.find("ANYGPU_DIST_BACKEND=gloo"), std::string::npos);

  // Explicit backend, nothing matches: 3.
  test::write_file(dir / "rocm.yaml", "backend: rocm\n");
  auto none =
      sh(anygpu("--root " + h100 + " --no-libs select --config " + q(dir / "rocm.yaml") + " 2>&1"));
  EXPECT_EQ(none.rc, 3);
  EXPECT_NE(none.out.find("backend 'rocm'"), std::string::npos) << none.out;

  // Bad input: 2, located.
  test::write_file(dir / "bad.yaml", "backend: auto\ndevice: 2\n");
  auto bad = sh(anygpu("--root " + h100 + " select --config " + q(dir / "bad.yaml") + " 2>&1"));
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.out.find(dir / "bad.yaml:2:1: unknown key 'device' (did you mean 'devices'?)"),
            std::string::npos)
      << bad.out;
  auto missing =
      sh(anygpu("--root " + h100 + " select --config " + q(dir / "nope.yaml") + " 2>&1"));
  EXPECT_EQ(missing.rc, 2);
  auto badformat = sh(anygpu("--root " + h100 + " select --format xml 2>&1"));
  EXPECT_EQ(badformat.rc, 2);
}

TEST(SelectCli, RuntimeContractIsCheckedFirst) {
  auto h100 = q(test::fixture_host("h100-8x"));
  test::TempDir dir;
  ::mkdir((dir / "sub").c_str(), 0755);
  test::write_file(dir / "sub/runtime-spec.yaml",
                   "# this contract must fail\nrequired_features:\n  - device_count_min: 64\n");
  test::write_file(dir / "sub/ok-spec.yaml", "required_features:\n  - device_count_min: 1\n");
  test::write_file(dir / "sub/fails.yaml", "runtime_contract: runtime-spec.yaml\n");
  test::write_file(dir / "sub/passes.yaml", "runtime_contract: ./ok-spec.yaml\n");
  test::write_file(dir / "sub/missing.yaml", "runtime_contract: ../absent.yaml\n");
  // Relative to the config's directory, not the current one.
  auto fails = sh(anygpu("--root " + h100 + " --no-libs select --config " +
                         q(dir / "sub/fails.yaml") + " 2>&1"));
  EXPECT_EQ(fails.rc, 1) << fails.out;
  EXPECT_NE(fails.out.find("[ERROR]"), std::string::npos) << fails.out;
  EXPECT_EQ(fails.out.find("export "), std::string::npos) << fails.out;
  auto passes =
      sh(anygpu("--root " + h100 + " --no-libs select --config " + q(dir / "sub/passes.yaml")));
  EXPECT_EQ(passes.rc, 0);
  EXPECT_NE(passes.out.find("CUDA_VISIBLE_DEVICES="), std::string::npos);
  auto missing = sh(anygpu("--root " + h100 + " --no-libs select --config " +
                           q(dir / "sub/missing.yaml") + " 2>&1"));
  EXPECT_EQ(missing.rc, 2) << missing.out;
}

namespace {
nlohmann::json select_call(const nlohmann::json& opts) {
  char* doc = anygpu_select_json(opts.is_null() ? nullptr : opts.dump().c_str());
  EXPECT_NE(doc, nullptr);
  auto j = nlohmann::json::parse(doc);
  anygpu_free(doc);
  return j;
}
}  // namespace

TEST(SelectCApi, SelectsOnAFixture) {
  test::TempDir dir;
  test::write_file(dir / "cfg.yaml", "devices: 2\n");
  auto j = select_call({{"root", test::fixture_host("mi300x-8x")},
                        {"no_libs", true},
                        {"config", dir / "cfg.yaml"},
                        {"nproc_per_node", 1}});
  EXPECT_EQ(j["schema"], "anygpu.selection/v1") << j.dump();
  EXPECT_EQ(j["vendor"], "amd");
  EXPECT_EQ(j["devices"], nlohmann::json::parse(R"(["0000:05:00.0","0000:26:00.0"])"));
  EXPECT_EQ(j["env"]["HIP_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(j["env"]["ANYGPU_NUM_WORKERS"], "96");

  test::write_file(dir / "cuda.yaml", "backend: cuda\n");
  auto none = select_call({{"root", test::fixture_host("mi300x-8x")},
                           {"no_libs", true},
                           {"config", dir / "cuda.yaml"}});
  EXPECT_EQ(none["schema"], "anygpu.error/v1");
  EXPECT_EQ(none["exit_code"], 3);

  test::write_file(dir / "bad.yaml", "backend: [x]\n");
  auto bad = select_call({{"root", test::fixture_host("mi300x-8x")}, {"config", dir / "bad.yaml"}});
  EXPECT_EQ(bad["exit_code"], 2);
  EXPECT_NE(bad["error"].get<std::string>().find(dir / "bad.yaml:1:10:"), std::string::npos);

  for (const char* opts : {"{\"nproc_per_node\": 0}", "{\"config\": 1}", "{\"conifg\": \"x\"}"}) {
    char* doc = anygpu_select_json(opts);
    auto e = nlohmann::json::parse(doc);
    anygpu_free(doc);
    EXPECT_EQ(e["exit_code"], 2) << opts;
  }
}

}  // namespace anygpu
