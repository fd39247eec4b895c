// `anygpu k8s labels`: a Node Feature Discovery features.d file for the discovered devices.
// `anygpu k8s job`: a Job (or PyTorchJob with --nnodes > 1) requesting the vendor's
// device-plugin resource, least privilege, on nodes carrying those labels.
// `anygpu k8s taint`: the Node patch that taints a node whose devices fail.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/node_health.h"
#include "cluster/k8s.h"
#include "cluster/k8s_names.h"
#include "cluster/k8s_taint.h"
#include "health/health.h"
#include "health/verdict.h"
#include "host/confined_writer.h"
#include "launch/command_line.h"
#include "render/json_text.h"
#include "util/regular_file.h"
#include "util/strings.h"

namespace anygpu::cli {

namespace {

struct K8sFlags {
  std::string output_dir;
  std::string prefix{kDefaultLabelPrefix};
  std::string image, name = "anygpu-job", vendor, resource;
  int gpus = 1, nnodes = 1;
  std::vector<std::string> command;
  bool health = false;  // labels: publish <prefix>/health
  // taint
  std::string node_file;
  std::string taint_on = "critical";
  HealthFlags health_flags;
};

// A Node object is a few hundred KiB at most (its status lists the node's images).
constexpr size_t kMaxNodeDocument = size_t{16} << 20;

// Label keys are <prefix>/<name>: the prefix must be a DNS subdomain (Kubernetes and NFD
// refuse the node's labels otherwise).
Result<bool> check_prefix(const std::string& prefix) {
  if (auto why = k8s_names::label_prefix_problem(prefix); !why.empty())
    return bad_input(cat({"--label-prefix \"", prefix, "\": ", why}));
  return true;
}

int run_labels(const GlobalOptions& g, const K8sFlags& f) {
  if (auto ok = check_prefix(f.prefix); !ok) return fail(ok.error());
  auto opts = g.host_options();
  if (!opts) return fail(opts.error());
  HostRoot host(*opts);
  auto inventory = discover(g, host);
  auto labels = node_labels(inventory, f.prefix);
  if (labels.empty()) return fail(host_error("no accelerator found; no labels to publish"));
  // Link domains from the link matrix (`anygpu topo`); a damaged link is left out with a warning.
  auto topology = read_topology(host, inventory);
  report_warnings(g, topology.warnings);
  add_link_labels(topology, f.prefix, labels);
  if (f.health) {
    // The worst device's `anygpu health`: ok, warning or critical (valid label values).
    auto evaluated = health::evaluate_health(host, inventory, {});
    if (!evaluated) return fail(evaluated.error());
    report_warnings(g, evaluated->warnings);
    labels.push_back(
        {cat({f.prefix, "/health"}), std::string(health::to_string(evaluated->worst()))});
  }
  if (g.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [k, v] : labels) j[k] = v;
    print_json(g, {{"schema", "anygpu.labels/v1"}, {"labels", j}});
    return kExitOk;
  }
  auto text = features_file(labels);
  if (f.output_dir.empty()) {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  // NFD reads every file in features.d and skips dotfiles: the content is written to a dotfile
  // temporary and renamed to "anygpu", so NFD never sees half a file.
  auto path = f.output_dir + "/anygpu";
  auto written = write_named_file(path, text, 0644);
  if (!written) return fail(written.error());
  if (!g.quiet) std::fprintf(stderr, "anygpu: wrote %s\n", path.c_str());
  return kExitOk;
}

int run_job(const GlobalOptions& g, const K8sFlags& f) {
  if (auto ok = check_prefix(f.prefix); !ok) return fail(ok.error());
  JobRequest r;
  r.name = f.name;
  r.image = f.image;
  r.gpus = f.gpus;
  r.nnodes = f.nnodes;
  r.label_prefix = f.prefix;
  r.argv = f.command;
  // The parser rewrites some arguments ("[a,b]"); the kernel's copy of argv is exact.
  if (auto raw = command_after_marker(own_argv(), "job")) r.argv = std::move(*raw);
  r.vendor = f.vendor;
  r.resource = f.resource;
  if (r.vendor.empty() || r.resource.empty()) {
    auto opts = g.host_options();
    if (!opts) return fail(opts.error());
    HostRoot host(*opts);
    auto inv = discover(g, host);
    if (r.vendor.empty()) {
      auto labels = node_labels(inv, f.prefix);
      if (labels.empty())
        return fail(bad_input("no accelerator found here: name the target with --vendor"));
      r.vendor = labels.front().second;
    }
    if (r.resource.empty()) {
      auto res = k8s_resource_for(inv, r.vendor);
      if (!res) return fail(res.error());
      r.resource = *res;
    }
  }
  auto manifest = job_manifest(r);
  if (!manifest) return fail(manifest.error());
  std::fputs(manifest->c_str(), stdout);
  return kExitOk;
}

Result<NodeTaints> read_node(const std::string& file) {
  auto text = file == "-" ? read_open_file(0, "standard input", kMaxNodeDocument + 1)
                          : read_regular_file(file, kMaxNodeDocument + 1, "Node document");
  if (!text) return text.error();
  if (text->size() > kMaxNodeDocument) return bad_input(file + ": larger than 16 MiB");
  return parse_node_taints(*text, file == "-" ? "standard input" : file);
}

// Exit 0 with the patch printed (`{}` when the node's taints are as they should be).
int run_taint(const GlobalOptions& g, const K8sFlags& f) {
  auto node = read_node(f.node_file);
  if (!node) return fail(node.error());
  auto evaluated = evaluate_node_health(g, f.health_flags);
  if (!evaluated) return fail(evaluated.error());
  auto verdict = health::node_verdict(*evaluated, action_level(f.taint_on));
  warn_blind(g, *evaluated, "neither tainting the node for it nor removing a taint");
  auto patch = verdict_patch(*node, verdict);
  if (!patch) return fail(patch.error());
  print(dump_json(*patch));
  return kExitOk;
}

}  // namespace

Command k8s_command() {
  return {"k8s", "Kubernetes: NFD node labels, Job manifests and the unhealthy-node taint",
          [](CLI::App& app) {
            auto f = std::make_shared<K8sFlags>();
            app.require_subcommand(1);
            auto* labels = app.add_subcommand(
                "labels", "Node Feature Discovery features.d file (vendor, count, arch, …)");
            labels->fallthrough();
            labels
                ->add_option("--output", f->output_dir,
                             "write DIR/anygpu atomically, e.g. "
                             "/etc/kubernetes/node-feature-discovery/features.d")
                ->type_name("DIR");
            labels->add_flag("--health", f->health,
                             "also publish <prefix>/health: ok, warning or critical, the worst "
                             "device's `anygpu health`");
            auto* job = app.add_subcommand(
                "job", "print a Job (PyTorchJob with --nnodes > 1) for IMAGE running CMD");
            job->fallthrough();
            for (auto* sub : {labels, job})
              sub->add_option("--label-prefix", f->prefix, "label namespace")->type_name("NS");
            job->add_option("--image", f->image, "container image")->required()->type_name("IMG");
            job->add_option("--gpus", f->gpus, "devices per pod")->check(CLI::Range(1, 1024));
            job->add_option("--nnodes", f->nnodes, "pods (> 1: a kubeflow.org/v1 PyTorchJob)")
                ->check(CLI::Range(1, 65536));
            job->add_option("--name", f->name, "object name (a DNS-1035 label)");
            job->add_option("--vendor", f->vendor, "target vendor (default: this host's)");
            job->add_option("--resource", f->resource,
                            "device-plugin resource (default: the vendor's, from the registry)");
            job->add_option("command", f->command, "-- CMD [ARGS…]");
            auto* taint = app.add_subcommand(
                "taint",
                "print the Node merge patch that sets anygpu.io/unhealthy=CODE:NoSchedule when "
                "a device fails, and removes it when none does");
            taint->fallthrough();
            taint
                ->add_option("--node", f->node_file,
                             "the Node as `kubectl get node NAME -o json` prints it (- for "
                             "standard input): the patch keeps its other taints")
                ->required()
                ->type_name("FILE");
            add_action_level(taint->add_option("--taint-on", f->taint_on,
                                               "taint at this severity or worse (warning, "
                                               "critical; default critical)"));
            add_health_flags(*taint, f->health_flags);
            return [f, labels, taint](const GlobalOptions& g) {
              if (labels->parsed()) return run_labels(g, *f);
              if (taint->parsed()) return run_taint(g, *f);
              return run_job(g, *f);
            };
          }};
}

}  // namespace anygpu::cli
