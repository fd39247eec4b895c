// Values that reach an engine's argv: image references by the distribution/reference grammar
// (cases from its reference_test.go), --user, --shm-size, --engine-arg, and the CSV-quoted
// --mount value; the planner refuses each bad value with exit-2 errors naming the flag.
#include <gtest/gtest.h>

#include "launch/engine_args.h"
#include "launch/engine_flags.h"
#include "launch/plan.h"
#include "select/accelerator_config.h"
#include "select/select.h"
#include "test_support.h"

namespace anygpu {
namespace {

TEST(EngineArgs, ImageReferencesByTheDistributionGrammar) {
  // Accepted by github.com/distribution/reference (reference_test.go, normalize_test.go).
  for (const char* ok :
       {"test_com", "test.com:tag", "test.com:5000", "test.com/repo:tag", "test:5000/repo",
        "test:5000/repo:tag", "lowercase:Uppercase", "sub-dom1.foo.com/bar/baz/quux",
        "sub-dom1.foo.com/bar/baz/quux:some-long-tag", "b.gcr.io/test.example.com/my-app:test",
        "xn--n3h.com/myimage:xn--n3h.com", "localhost/exp:1", "localhost:5000/a/b",
        "[2001:db8::1]:5000/repo", "docker.io/library/debian:12", "foo_bar.com:8080",
        "foo/foo_bar.com:8080",
        "test:5000/repo@sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "test:5000/"
        "repo:tag@sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"})
    EXPECT_FALSE(check_image_reference(ok, "--container")) << ok;
  // Refused by it (and dangerous or meaningless as an argv element).
  for (const char* bad :
       {"", "--privileged", "-it", ":justtag",
        "@sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "repo@sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff:tag",
        "Uppercase:tag", "test:5000/Uppercase/lowercase:tag", "aa/asdf$$^/aa", "a b",
        "repo@sha256:short", "a:tag:tag2", "foo:bar baz", "x\nprivileged", "/abs/path"})
    EXPECT_TRUE(check_image_reference(bad, "--container")) << bad;
  auto e = check_image_reference("--privileged", "--container");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ErrorKind::bad_input);
  EXPECT_NE(e->message.find("--container '--privileged'"), std::string::npos);
  // The name part is at most 255 characters.
  EXPECT_TRUE(check_image_reference(std::string(256, 'a'), "--container"));
  EXPECT_FALSE(check_image_reference(std::string(255, 'a'), "--container"));
}

TEST(EngineArgs, UserShmSizeAndEngineArgs) {
  for (const char* ok : {"1001:1001", "1001", "u", "u:g", "_svc:render", "a.b-c:1"})
    EXPECT_FALSE(check_container_user(ok, "--user")) << ok;
  for (const char* bad : {"", "--privileged", "-u", "0:0:0", "a b", ":1", "1:", "u;id", "ü"})
    EXPECT_TRUE(check_container_user(bad, "--user")) << bad;
  for (const char* ok : {"8g", "512m", "1024", "64K", "1b"})
    EXPECT_FALSE(check_shm_size(ok, "--shm-size")) << ok;
  for (const char* bad : {"", "0", "0g", "-1g", "8gb ", "8 g", "1t", "--privileged", "1.5g"})
    EXPECT_TRUE(check_shm_size(bad, "--shm-size")) << bad;
}

// The engine's own reading (spf13/pflag, which podman and docker use): a short flag's value may
// be glued to it (-u0), short flags group (-tu0 is -t -u 0), a value may follow as the next
// argument. Every spelling of a refused flag is refused; accepted spellings parse back to the
// flags the engine will see.
TEST(EngineArgs, ParsedAsTheEngineParsesThem) {
  auto names = [](const std::vector<std::string>& args) {
    auto flags = parse_engine_flags(args);
    EXPECT_TRUE(flags) << (flags ? "" : flags.error().message);
    std::vector<std::string> out;
    if (flags)
      for (const auto& f : *flags) out.push_back(f.name + "=" + f.value.value_or("<bool>"));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names({"-it"}), (V{"interactive=<bool>", "tty=<bool>"}));
  EXPECT_EQ(names({"-eA=1"}), (V{"env=A=1"}));
  EXPECT_EQ(names({"-e=A=1"}), (V{"env=A=1"}));
  EXPECT_EQ(names({"-e", "A=1", "--rm"}), (V{"env=A=1", "rm=<bool>"}));
  EXPECT_EQ(names({"-tw/data"}), (V{"tty=<bool>", "workdir=/data"}));
  EXPECT_EQ(names({"--network", "none"}), (V{"network=none"}));
  EXPECT_EQ(names({"--name", "--rm"}), (V{"name=--rm"}));  // pflag takes the next argument as is
  EXPECT_EQ(names({"--tty=false"}), (V{"tty=false"}));

  for (const V& bad :
       std::vector<V>{// Root by every spelling of --user.
                      {"-u", "0"},
                      {"-u0"},
                      {"-u=0"},
                      {"-tu0"},
                      {"-itu0"},
                      {"-u1001:0"},
                      {"--user=0"},
                      {"--user", "0"},
                      // Privilege, devices, namespaces and groups.
                      {"--privileged"},
                      {"--privileged=true"},
                      {"--cap-add=SYS_ADMIN"},
                      {"--device=/dev/mem"},
                      {"--security-opt=seccomp=unconfined"},
                      {"--pid=host"},
                      {"--userns=host"},
                      {"--group-add=0"},
                      {"--gpus=all"},
                      {"--runtime=nvidia"},
                      {"--ipc", "host"},
                      {"--cgroup-parent=/"},
                      {"--env-file=x.env"},
                      {"--env-host"},
                      // Unknown flags are refused, not guessed at.
                      {"--no-such-flag"},
                      {"-Z"},
                      {"-tZ"},
                      // What the engine would take as the image, or as the end of its options.
                      {"ubuntu"},
                      {"--"},
                      {"-"},
                      {"--rm", "debian:12"},
                      // A value-taking flag at the end would swallow anygpu's image.
                      {"--name"},
                      {"-e"},
                      {"-te"},
                      // Control characters.
                      {"--label=a\nb"},
                      {"--name", "x\ny"}}) {
    EXPECT_TRUE(check_engine_args(bad)) << testing::PrintToString(bad);
  }
  EXPECT_FALSE(check_engine_args({"--network=none", "--label=x", "--env=A=1", "-v", "data:/data",
                                  "--mount=type=bind,src=/srv/data,dst=/data,ro", "-it", "--memory",
                                  "8g", "-w/workspace/sub"}));
}

TEST(EngineArgs, EnvAndMountsThatUndoTheSelectionAreRefused) {
  const std::vector<std::string> steering = {"NVIDIA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"};
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"-eNVIDIA_VISIBLE_DEVICES=all"},
           {"-e", "NVIDIA_VISIBLE_DEVICES=all"},
           {"-e=NVIDIA_VISIBLE_DEVICES=all"},
           {"--env=NVIDIA_VISIBLE_DEVICES=all"},
           {"--env", "NVIDIA_VISIBLE_DEVICES=all"},
           {"-teNVIDIA_VISIBLE_DEVICES=all"},
           {"-e", "NVIDIA_VISIBLE_DEVICES"},
           {"-e", "NVIDIA_*"},
           {"-e", "CUDA_VISIBLE_DEVICES=0"},
           {"-v", "/dev:/dev"},
           {"-v/dev/nvidia0:/dev/nvidia0"},
           {"--volume=/:/host"},
           {"-v", "/sys/bus/pci:/x"},
           {"-v", "/var/run/docker.sock:/var/run/docker.sock"},
           {"-v", "/dev/../etc:/x"},
           {"--mount=type=bind,src=/dev/dri,dst=/dev/dri"},
           {"--mount", "type=bind,source=/proc,target=/p"},
           {"--mount=type=devpts,dst=/x"},
           // The engines read --mount as one CSV record, keys in any case (Docker).
           {"--mount=type=bind,\"src=/dev\",dst=/d"},
           {"--mount=type=bind,SRC=/dev,dst=/d"},
           {"--mount=Type=Bind,Source=/sys,dst=/s"},
           {"--mount=type=DEVPTS,dst=/x"},
           {"--mount=type=bind,\"src=/dev\"\",dst=/d"},
           {"--mount=type=bind,src=/d\"ev,dst=/d"},
           {"--mount=type=bind,\"src=/srv,dst=/d"}}) {
    auto e = check_engine_args(bad, steering);
    ASSERT_TRUE(e) << testing::PrintToString(bad);
    EXPECT_EQ(e->kind, ErrorKind::bad_input);
    EXPECT_NE(e->message.find("--engine-arg"), std::string::npos) << e->message;
  }
  EXPECT_FALSE(check_engine_args(
      {"-e", "HF_HOME=/data/hf", "-v", "/srv/data:/data:ro", "--mount=type=tmpfs,dst=/scratch",
       "--mount=type=bind,\"src=/srv/a,b\",dst=/ab,ro",
       "--mount=type=bind,\"src=/srv/q\"\"q\",dst=/q"},
      steering));
}

TEST(EngineArgs, BindMountValueIsOneCsvRecord) {
  EXPECT_EQ(bind_mount_arg({"/a/b", "/workspace", {}}), "type=bind,src=/a/b,dst=/workspace");
  EXPECT_EQ(bind_mount_arg({"/a:b", "/workspace", {}}), "type=bind,src=/a:b,dst=/workspace");
  EXPECT_EQ(bind_mount_arg({"/a,b", "/w", {"ro"}}), "type=bind,\"src=/a,b\",dst=/w,ro");
  EXPECT_EQ(bind_mount_arg({"/a\"b", "/w", {}}), "type=bind,\"src=/a\"\"b\",dst=/w");
}

Selection h100_two() {
  auto cfg = parse_accelerator_config("devices: [0, 3]\n", "accelerator-config.yaml");
  auto sel = select_devices(test::fixture_inventory("h100-8x"), *cfg, {});
  EXPECT_TRUE(sel);
  return *sel;
}

TEST(EngineArgs, PlannerRefusesBadValuesNamingTheFlag) {
  auto sel = h100_two();
  HostRoot host(HostOptions{test::fixture_host("h100-8x"), false, {}});
  HostFacts facts;
  facts.root_prefix = test::fixture_host("h100-8x");
  facts.engines_on_path = {"podman"};
  facts.cwd = "/home/u/exp";
  facts.edits = *container_edits(host, "nvidia", sel.devices);
  auto plan_with = [&](auto change) {
    LaunchOptions o;
    o.image = "localhost/exp:1";
    o.command = {"true"};
    change(o);
    return plan_launch(sel, o, facts, {}, std::nullopt);
  };
  struct Case {
    std::function<void(LaunchOptions&)> change;
    std::string flag;
  };
  std::vector<Case> cases = {
      {[](LaunchOptions& o) { o.image = "--privileged"; }, "--container '--privileged'"},
      {[](LaunchOptions& o) { o.image = ""; }, "--container ''"},
      {[](LaunchOptions& o) { o.user = "0:0 --privileged"; }, "--user"},
      {[](LaunchOptions& o) { o.shm_size = "--privileged"; }, "--shm-size"},
      {[](LaunchOptions& o) { o.engine_args = {"--privileged"}; }, "--engine-arg"},
      {[](LaunchOptions& o) { o.engine_args = {"-tu0"}; }, "--engine-arg '-tu0'"},
      // Set by no variable of the plan but read by NVIDIA's hook: steered by the registry.
      {[](LaunchOptions& o) { o.engine_args = {"-eNVIDIA_VISIBLE_DEVICES=all"}; },
       "NVIDIA_VISIBLE_DEVICES"},
      {[](LaunchOptions& o) { o.engine_args = {"--env=ROCR_VISIBLE_DEVICES=0"}; },
       "ROCR_VISIBLE_DEVICES"},
  };
  for (const auto& c : cases) {
    auto plan = plan_with(c.change);
    ASSERT_FALSE(plan) << c.flag;
    EXPECT_EQ(plan.error().kind, ErrorKind::bad_input) << c.flag;
    EXPECT_NE(plan.error().message.find(c.flag), std::string::npos) << plan.error().message;
  }
  // A working directory with ':' and ',' mounts as one field.
  facts.cwd = "/home/u/run:1,a";
  auto plan = plan_with([](LaunchOptions&) {});
  ASSERT_TRUE(plan) << plan.error().message;
  auto it = std::find(plan->argv.begin(), plan->argv.end(),
                      "type=bind,\"src=/home/u/run:1,a\",dst=/workspace");
  EXPECT_NE(it, plan->argv.end());
  for (const auto& a : plan->argv) EXPECT_NE(a, "-v");
}

}  // namespace
}  // namespace anygpu
