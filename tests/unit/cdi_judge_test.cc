// CDI specs judged as runtimes judge them: names resolved across both directories (a name two
// specs of one directory define is refused, /var/run/cdi takes over /etc/cdi), subdirectories
// unread, and specs broken on this host (nodes, mounts or driver gone) never chosen for
// `run --container`, which then passes explicit nodes and says why.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

#include "cdi/cdi.h"
#include "cdi/cdi_defects.h"
#include "cdi/cdi_resolve.h"
#include "test_support.h"
#include "util/strings.h"

extern char** environ;

namespace anygpu {

namespace {

HostRoot host_at(const std::string& root) {
  HostOptions o;
  o.root = root;
  o.load_libraries = false;
  return HostRoot(o);
}

// A minimal valid spec of `kind` defining `names`, each one /dev/null (present everywhere).
std::string spec_text(const std::string& kind, const std::vector<std::string>& names) {
  std::string out = cat({"cdiVersion: 0.5.0\nkind: ", kind, "\ndevices:\n"});
  for (const auto& n : names)
    out += cat({"- name: \"", n, "\"\n  containerEdits:\n    deviceNodes: [{path: /dev/null}]\n"});
  return out;
}

std::vector<CdiSpec> scan(const std::string& root) {
  auto s = scan_cdi_specs(host_at(root));
  EXPECT_TRUE(s.errors.empty()) << s.errors.front().message;
  return s.specs;
}

const CdiSpec* by_file(const std::vector<CdiSpec>& specs, const std::string& file) {
  for (const auto& s : specs)
    if (s.file == file) return &s;
  return nullptr;
}

struct Run {
  int rc = -1;
  std::string out, err;
};

// The binary, no shell; stdout and stderr apart.
Run run_anygpu(std::vector<std::string> args, const std::string& cwd) {
  args.insert(args.begin(), test::anygpu_binary());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  test::TempDir tmp;
  auto out_path = tmp / "out", err_path = tmp / "err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT, 0600);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  pid_t pid = 0;
  Run r;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
    ADD_FAILURE() << "cannot run " << argv[0];
    return r;
  }
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace

TEST(CdiResolve, OneDirectoryRefusesANameTwoSpecsDefine) {
  test::TempDir tmp;
  test::write_file(tmp / "etc/cdi/a.yaml", spec_text("example.com/gpu", {"0", "1", "all"}));
  test::write_file(tmp / "etc/cdi/b.yaml", spec_text("example.com/gpu", {"0", "all", "9"}));
  // The same names of another kind are other names.
  test::write_file(tmp / "etc/cdi/c.yaml", spec_text("example.com/npu", {"0", "all"}));
  auto specs = scan(tmp.path());
  ASSERT_EQ(specs.size(), 3u);
  CdiNameTable table(specs);
  const auto* a = by_file(specs, "/etc/cdi/a.yaml");
  const auto* b = by_file(specs, "/etc/cdi/b.yaml");
  EXPECT_EQ(table.owner("example.com/gpu", "0"), nullptr);
  EXPECT_EQ(table.owner("example.com/gpu", "all"), nullptr);
  EXPECT_EQ(table.owner("example.com/gpu", "1"), a);
  EXPECT_EQ(table.owner("example.com/gpu", "9"), b);
  EXPECT_EQ(table.owner("example.com/npu", "0"), by_file(specs, "/etc/cdi/c.yaml"));
  EXPECT_EQ(table.owner("example.com/gpu", "7"), nullptr);
  ASSERT_EQ(table.clashes().size(), 1u);
  const auto& c = table.clashes()[0];
  EXPECT_TRUE(c.conflict);
  EXPECT_EQ(c.first, a);
  EXPECT_EQ(c.second, b);
  EXPECT_EQ(c.names, (std::vector<std::string>{"0", "all"}));
  EXPECT_EQ(table.why_not(*a, "0"),
            "runtimes refuse example.com/gpu=0: /etc/cdi/a.yaml and /etc/cdi/b.yaml both define "
            "it in one directory");
  EXPECT_EQ(table.why_not(*a, "1"), "");
}

TEST(CdiResolve, RunDirectoryTakesOverAndAConflictBelowStillDropsTheName) {
  test::TempDir tmp;
  test::write_file(tmp / "etc/cdi/a.yaml", spec_text("example.com/gpu", {"0", "1"}));
  test::write_file(tmp / "var/run/cdi/r.yaml", spec_text("example.com/gpu", {"0", "1"}));
  auto specs = scan(tmp.path());
  {
    CdiNameTable table(specs);
    const auto* r = by_file(specs, "/var/run/cdi/r.yaml");
    EXPECT_EQ(table.owner("example.com/gpu", "0"), r);
    ASSERT_EQ(table.clashes().size(), 1u);
    EXPECT_FALSE(table.clashes()[0].conflict);
    EXPECT_EQ(table.clashes()[0].second, r);
    EXPECT_EQ(table.why_not(*by_file(specs, "/etc/cdi/a.yaml"), "1"),
              "runtimes take example.com/gpu=1 from /var/run/cdi/r.yaml (a higher-priority "
              "directory)");
  }
  // cache.go deletes every conflicting name at the end of its refresh: "0" defined twice in
  // /etc/cdi is gone even though /var/run/cdi defines it too.
  test::write_file(tmp / "etc/cdi/b.yaml", spec_text("example.com/gpu", {"0"}));
  specs = scan(tmp.path());
  CdiNameTable table(specs);
  EXPECT_EQ(table.owner("example.com/gpu", "0"), nullptr);
  EXPECT_EQ(table.owner("example.com/gpu", "1"), by_file(specs, "/var/run/cdi/r.yaml"));
  EXPECT_NE(table.why_not(*by_file(specs, "/var/run/cdi/r.yaml"), "0").find("runtimes refuse"),
            std::string::npos);
}

TEST(CdiRead, SubdirectoriesAreNotRead) {
  test::TempDir tmp;
  test::write_file(tmp / "etc/cdi/a.yaml", spec_text("example.com/gpu", {"0"}));
  test::write_file(tmp / "etc/cdi/old/a.yaml", spec_text("example.com/gpu", {"0"}));
  test::write_file(tmp / "etc/cdi/old/broken.json", "{");
  // A directory whose name looks like a spec is not a spec either.
  test::write_file(tmp / "etc/cdi/dir.yaml/x", "");
  auto specs = scan(tmp.path());
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].file, "/etc/cdi/a.yaml");
  EXPECT_TRUE(CdiNameTable(specs).clashes().empty());
}

TEST(CdiDefects, NodesMountsAndReasons) {
  test::TempDir tmp;
  test::write_file(tmp / "dev/nvidia0", "");
  test::write_file(tmp / "usr/lib/libcuda.so.1", "");
  test::write_file(tmp / "etc/cdi/s.yaml",
                   "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n"
                   "- name: \"0\"\n  containerEdits:\n    deviceNodes: [{path: /dev/nvidia0}]\n"
                   "- name: \"1\"\n  containerEdits:\n    deviceNodes: [{path: /dev/nvidia1}]\n"
                   "containerEdits:\n  mounts:\n"
                   "  - {hostPath: /usr/lib/libcuda.so.1, containerPath: /usr/lib/libcuda.so.1}\n"
                   "  - {hostPath: /usr/lib/gone.so, containerPath: /usr/lib/gone.so}\n");
  auto specs = scan(tmp.path());
  ASSERT_EQ(specs.size(), 1u);
  auto host = host_at(tmp.path());
  CdiSpecJudge judge(host, {});
  auto d = judge.defects(specs[0]);
  EXPECT_EQ(d.gone_nodes, std::vector<std::string>{"nvidia.com/gpu=1: /dev/nvidia1"});
  EXPECT_EQ(d.gone_mounts, std::vector<std::string>{"/usr/lib/gone.so"});
  EXPECT_TRUE(d.stale_driver_versions.empty());
  EXPECT_TRUE(d.any());
  EXPECT_EQ(d.reasons(),
            (std::vector<std::string>{
                "it names 1 device node that does not exist (nvidia.com/gpu=1: /dev/nvidia1)",
                "it mounts 1 host file that no longer exists (/usr/lib/gone.so)"}));
  test::write_file(tmp / "dev/nvidia1", "");
  test::write_file(tmp / "usr/lib/gone.so", "");
  EXPECT_FALSE(judge.defects(specs[0]).any());
}

TEST(CdiChoose, ABrokenSpecIsNotUsedAndTheWarningSaysWhy) {
  const auto& inv = test::fixture_inventory("h100-8x");
  auto host = host_at(test::fixture_host("h100-8x"));
  std::vector<const Device*> first{inv.of_vendor("nvidia")[0]};
  auto edits = container_edits(host, "nvidia", first);
  ASSERT_TRUE(edits);
  auto spec = parse_cdi_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n"
      "    deviceNodes:\n    - path: /dev/nvidia0\n    - path: /dev/dri/card1\n"
      "    - path: /dev/dri/renderD128\ncontainerEdits:\n  deviceNodes:\n"
      "  - path: /dev/nvidiactl\n  - path: /dev/nvidia-uvm\n  - path: /dev/nvidia-uvm-tools\n",
      "/etc/cdi/s.yaml");
  ASSERT_TRUE(spec) << spec.error().message;
  std::vector<CdiSpec> specs{*spec};
  ASSERT_TRUE(choose_cdi_names(specs, *edits).names);
  auto broken = [](const CdiSpec&) {
    return std::vector<std::string>{"it mounts 1 host file that no longer exists (/x)"};
  };
  auto choice = choose_cdi_names(specs, *edits, Registry::builtin(), broken);
  EXPECT_FALSE(choice.names);
  ASSERT_EQ(choice.warnings.size(), 1u);
  EXPECT_EQ(choice.warnings[0],
            "CDI spec /etc/cdi/s.yaml covers the selected devices but it mounts 1 host file that "
            "no longer exists (/x): passing device nodes explicitly");
}

TEST(CdiChoose, NamesARuntimeWouldRefuseOrTakeElsewhereAreAvoided) {
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("h100-8x"), root);
  auto inv = test::probe_root(root);
  auto host = host_at(root);
  auto ours = generate_cdi_spec(host, inv, "nvidia", {.host_view = true});
  ASSERT_TRUE(ours);
  test::write_file(root + "/etc/cdi/anygpu-nvidia.yaml", *ours);
  // The same spec under another name, as a vendor tool would write it, but only with index
  // names: "0" and "all" are now defined twice in /etc/cdi.
  auto doc = YAML::Load(*ours);
  YAML::Node only_index(YAML::NodeType::Sequence);
  for (const auto& d : doc["devices"]) {
    auto name = d["name"].as<std::string>();
    if (name == "all" || name.find_first_not_of("0123456789") == std::string::npos)
      only_index.push_back(d);
  }
  doc["devices"] = only_index;
  YAML::Emitter e;
  e << doc;
  test::write_file(root + "/etc/cdi/vendor.yaml", e.c_str());
  std::vector<const Device*> gpu2{inv.of_vendor("nvidia")[2]};
  auto edits = container_edits(host, "nvidia", gpu2);
  ASSERT_TRUE(edits);
  auto specs = scan(root);
  auto choice = choose_cdi_names(specs, *edits);
  // anygpu's spec still gives the bus-id name, which no other spec defines.
  ASSERT_TRUE(choice.names) << join(choice.warnings, "\n");
  EXPECT_EQ(*choice.names, std::vector<std::string>{"nvidia.com/gpu=0000:3a:00.0"});
  ASSERT_EQ(choice.warnings.size(), 0u);

  // With both specs defining exactly the same names, none is usable.
  test::write_file(root + "/etc/cdi/vendor.yaml", *ours);
  specs = scan(root);
  choice = choose_cdi_names(specs, *edits);
  EXPECT_FALSE(choice.names);
  ASSERT_EQ(choice.warnings.size(), 2u);
  EXPECT_NE(choice.warnings[0].find("runtimes refuse nvidia.com/gpu=2: "
                                    "/etc/cdi/anygpu-nvidia.yaml and /etc/cdi/vendor.yaml"),
            std::string::npos)
      << choice.warnings[0];

  // Moved to /var/run/cdi, the vendor's copy takes every name over: it is the one used.
  ::unlink((root + "/etc/cdi/vendor.yaml").c_str());
  test::write_file(root + "/var/run/cdi/vendor.yaml", *ours);
  specs = scan(root);
  choice = choose_cdi_names(specs, *edits);
  ASSERT_TRUE(choice.names);
  EXPECT_EQ(*choice.names, std::vector<std::string>{"nvidia.com/gpu=2"});
}

// `run --container` on a host whose covering spec mounts a file that is gone: the plan passes
// explicit nodes and says why, as doctor calls the spec broken (containers.cdi-mounts-gone).
TEST(CdiChoose, RunFallsBackToExplicitNodesWhenTheSpecIsBroken) {
  test::TempDir tmp;
  auto root = tmp / "host";
  test::copy_tree(test::fixture_host("hygon-dcu"), root);
  auto host = host_at(root);
  auto spec = generate_cdi_spec(host, test::probe_root(root), "hygon", {.host_view = true});
  ASSERT_TRUE(spec);
  test::write_file(root + "/etc/cdi/anygpu-hygon.yaml", *spec);
  std::vector<std::string> args = {"--root",     root,          "--no-libs", "run",
                                   "--no-check", "--container", "img",       "--engine",
                                   "podman",     "--dry-run",   "--",        "true"};
  auto good = run_anygpu(args, tmp.path());
  ASSERT_EQ(good.rc, 0) << good.err;
  EXPECT_NE(good.out.find("--device hygon.com/dcu=0 --device hygon.com/dcu=1"), std::string::npos)
      << good.out;

  auto doc = YAML::Load(*spec);
  YAML::Node mount;
  mount["hostPath"] = "/opt/hyhal/lib/libgone.so";
  mount["containerPath"] = "/opt/hyhal/lib/libgone.so";
  doc["containerEdits"]["mounts"].push_back(mount);
  YAML::Emitter e;
  e << doc;
  test::write_file(root + "/etc/cdi/anygpu-hygon.yaml", e.c_str());
  auto broken = run_anygpu(args, tmp.path());
  ASSERT_EQ(broken.rc, 0) << broken.err;
  EXPECT_EQ(broken.out.find("hygon.com/dcu="), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find("--device " + root + "/dev/dri/renderD128:/dev/dri/renderD128"),
            std::string::npos)
      << broken.out;
  EXPECT_NE(broken.err.find("warning: CDI spec /etc/cdi/anygpu-hygon.yaml covers the selected "
                            "devices but it mounts 1 host file that no longer exists "
                            "(/opt/hyhal/lib/libgone.so): passing device nodes explicitly"),
            std::string::npos)
      << broken.err;
}

}  // namespace anygpu
