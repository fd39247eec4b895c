// `anygpu k8s labels`: a Node Feature Discovery features.d file for the discovered devices.
// `anygpu k8s job`: a Job (or PyTorchJob with --nnodes > 1) requesting the vendor's
// device-plugin resource, least privilege, on nodes carrying those labels.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cluster/k8s.h"
#include "cluster/k8s_names.h"
#include "health/health.h"
#include "host/confined_writer.h"
#include "launch/command_line.h"
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
};

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

}  // namespace

Command k8s_command() {
  return {"k8s", "Kubernetes: NFD node labels and Job manifests", [](CLI::App& app) {
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
            return [f, labels](const GlobalOptions& g) {
              if (labels->parsed()) return run_labels(g, *f);
              return run_job(g, *f);
            };
          }};
}

}  // namespace anygpu::cli
