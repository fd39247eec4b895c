#include "gather/gather.h"

#include <sys/stat.h>

#include "gather/copier.h"
#include "gather/manifest.h"
#include "gather/readers.h"
#include "gather/redact.h"
#include "host/confined_writer.h"
#include "host/paths.h"
#include "registry/registry.h"
#include "render/json_text.h"

namespace anygpu {

namespace {

using namespace gather;

// Copies keep the host's permission bits exactly, as `cp -a` does (doctor judges device access
// by them): no umask while the tree is built. gather is a command of its own process.
class ExactModes {
 public:
  ExactModes() : saved_(::umask(0)) {}
  ~ExactModes() { ::umask(saved_); }
  ExactModes(const ExactModes&) = delete;
  ExactModes& operator=(const ExactModes&) = delete;

 private:
  mode_t saved_;
};

RedactContext redact_context(const HostRoot& host, const Inventory& inventory) {
  RedactContext c;
  std::vector<std::string> names;
  for (auto p : {paths::kHostname, paths::kEtcHostname})
    if (auto v = host.read_value(p)) names.push_back(*v);
  c.hostnames = hostname_forms(names);
  for (const auto& d : inventory.devices) c.gpu_bus_ids.insert(d.pci.address.str());
  // The groups device access is about: DRM's convention and each vendor's own.
  c.kept_group_names = {"video", "render"};
  for (const auto& v : Registry::builtin().vendors())
    if (!v.access.group.empty()) c.kept_group_names.emplace(v.access.group);
  return c;
}

Result<bool> copy_reads(const HostRoot& host, const Reads& reads, Copier& copier) {
  ExactModes modes;
  for (const auto& path : reads.paths) {
    auto r = copier.materialize(path);
    if (!r) return r.error();
    if (!*r || !host.is_dir(**r)) continue;
    // A listed directory's entries matter even when none was read (drm/cardN, renderDN).
    const auto& dir = **r;
    if (auto entries = host.list_dir(dir))
      for (const auto& e : *entries)
        if (auto made = copier.materialize_entry(dir + (dir == "/" ? "" : "/") + e); !made)
          return made.error();
  }
  return true;
}

GatherSummary summarize(const CopyRecord& r, const Redactor& red) {
  GatherSummary s;
  s.files = r.files, s.links = r.links, s.dirs = r.dirs, s.bytes = r.bytes;
  s.not_copied = r.not_copied.size(), s.not_followed = r.not_followed.size();
  s.log_records = red.log_records();
  s.log_kept = red.applies() ? red.log_gpu_records() : red.log_records();
  s.redacted = red.applies();
  for (const auto& [kind, files] : red.found())
    s.privacy.push_back({std::string(to_string(kind)), files.size()});
  return s;
}

}  // namespace

Result<GatherSummary> gather_host(const HostRoot& host, const std::string& dest,
                                  const GatherOptions& options) {
  // Built beside DEST under an unpredictable name and renamed onto it: a killed gather leaves
  // DEST as it was (absent, or the empty directory it was), and the next one removes the
  // staging tree it left.
  auto staged = StagedTree::begin(dest);
  if (!staged) return staged.error();
  auto when = std::chrono::system_clock::now();
  Reads reads = record_reads(host);
  Redactor redactor(redact_context(host, reads.inventory), options.redact);
  Copier copier(host, (*staged)->tree(), redactor);
  if (auto done = copy_reads(host, reads, copier); !done) return done.error();

  ManifestInput in{options.version,  options.command, host.options().root, when, &reads.inventory,
                   &copier.record(), &redactor};
  auto manifest = dump_json(manifest_json(in)) + "\n";
  if (auto w = (*staged)->tree().write_file(kGatherManifest, manifest,
                                            {.mode = 0644, .sync = false, .atomic = false});
      !w)
    return w.error();
  if (auto done = (*staged)->commit(); !done) return done.error();
  return summarize(copier.record(), redactor);
}

}  // namespace anygpu
