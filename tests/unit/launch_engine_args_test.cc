// Values that reach an engine's argv: image references by the distribution/reference grammar
// (cases from its reference_test.go), --user, --shm-size, --engine-arg, and the CSV-quoted
// --mount value; the planner refuses each bad value with exit-2 errors naming the flag.
#include <gtest/gtest.h>

#include "launch/engine_args.h"
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
  EXPECT_FALSE(check_engine_args({"--network=none", "--label=x", "--env=A=1"}));
  for (const char* bad : {"--privileged", "--cap-add=SYS_ADMIN", "--device=/dev/mem",
                          "--security-opt=seccomp=unconfined", "--user=0", "--pid=host",
                          "--userns=host", "--group-add=0", "--gpus=all", "--runtime=nvidia"})
    EXPECT_TRUE(check_engine_args({bad})) << bad;
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
