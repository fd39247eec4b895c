#include "probe/libs/probe_protocol.h"

#include <algorithm>
#include <charconv>

#include "util/strings.h"
#include "worker/message.h"

namespace anygpu::worker {

namespace {

// The shortest text that reads back as `v` ("4", "0.5").
std::string shortest_decimal(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

bool arity(const Record& r, size_t n, std::optional<std::string>& error) {
  if (r.fields.size() == n) return true;
  error = at(r, cat({"'", r.tag, "' takes ", std::to_string(n), " field(s)"}));
  return false;
}

// "mig GI CI" adds a MIG device to the last device; mig-uuid, mig-profile and mig-memory fill
// the last MIG device, each once.
void decode_mig(const Record& r, LibraryDeviceFacts& d, std::optional<std::string>& error) {
  if (!arity(r, r.tag == "mig" ? 2 : 1, error)) return;
  if (r.tag == "mig") {
    auto gi = parse_uint(r.fields[0]), ci = parse_uint(r.fields[1]);
    if (!gi || !ci || *gi > 64 || *ci > 64) {
      error = at(r, "bad MIG instance ids");
      return;
    }
    d.mig.push_back({static_cast<unsigned>(*gi), static_cast<unsigned>(*ci), {}, {}, {}});
    return;
  }
  if (d.mig.empty()) {
    error = at(r, cat({"'", r.tag, "' before any 'mig'"}));
    return;
  }
  auto& m = d.mig.back();
  if (r.tag == "mig-memory") {
    auto v = parse_uint(r.fields[0]);
    if (!v || m.memory_total_bytes) error = at(r, "bad or repeated 'mig-memory'");
    if (!error) m.memory_total_bytes = *v;
    return;
  }
  auto& field = r.tag == "mig-uuid" ? m.uuid : m.profile;
  if (field) error = at(r, cat({"second '", r.tag, "'"}));
  field = r.fields[0];
}

// "nvlinks" says NVML answered for every link of the last device; each "nvlink LINK DOMAIN BUS
// DEVICE PEER" after it is one active link (numbers as NVML gave them, judged by src/topo).
// "nvlinks-unknown WHY" says it could not. One of the two per device.
void decode_nvlink(const Record& r, LibraryDeviceFacts& d, std::optional<std::string>& error) {
  if (!arity(r, r.tag == "nvlink" ? 5 : r.tag == "nvlinks" ? 0 : 1, error)) return;
  if (r.tag != "nvlink") {
    if (d.nvlink) {
      error = at(r, cat({"second NVLink state ('", r.tag, "')"}));
      return;
    }
    d.nvlink.emplace();
    if (r.tag == "nvlinks-unknown") d.nvlink->unknown = r.fields[0];
    return;
  }
  if (!d.nvlink || d.nvlink->unknown) {
    error = at(r, "'nvlink' without 'nvlinks' before it");
    return;
  }
  auto link = parse_uint(r.fields[0]), domain = parse_uint(r.fields[1]),
       bus = parse_uint(r.fields[2]), device = parse_uint(r.fields[3]);
  auto peer = parse_nvlink_peer(r.fields[4]);
  constexpr uint64_t kU32 = 0xffffffffu;  // NVML's fields are unsigned int
  if (!link || *link >= kMaxNvLinks || !domain || *domain > kU32 || !bus || *bus > kU32 ||
      !device || *device > kU32 || !peer) {
    error = at(r, "bad 'nvlink' fields");
    return;
  }
  for (const auto& e : d.nvlink->active)
    if (e.link == *link) {
      error = at(r, "link " + std::to_string(*link) + " listed twice");
      return;
    }
  d.nvlink->active.push_back({static_cast<unsigned>(*link), *domain, *bus, *device, *peer});
}

// "hccs-links" says DCMI answered for every pair of the last device; each "hccs BUS" after it
// names a chip it reaches over HCCS (judged by src/topo). "hccs-unknown WHY" says it could not.
void decode_hccs(const Record& r, LibraryDeviceFacts& d, std::optional<std::string>& error) {
  if (!arity(r, r.tag == "hccs-links" ? 0 : 1, error)) return;
  if (r.tag != "hccs") {
    if (d.hccs) {
      error = at(r, cat({"second HCCS state ('", r.tag, "')"}));
      return;
    }
    d.hccs.emplace();
    if (r.tag == "hccs-unknown") d.hccs->unknown = r.fields[0];
    return;
  }
  if (!d.hccs || d.hccs->unknown) {
    error = at(r, "'hccs' without 'hccs-links' before it");
    return;
  }
  auto peer = PciAddress::parse(r.fields[0]);
  if (!peer ||
      std::find(d.hccs->peers.begin(), d.hccs->peers.end(), *peer) != d.hccs->peers.end()) {
    error = at(r, "bad or repeated 'hccs' address");
    return;
  }
  d.hccs->peers.push_back(*peer);
}

// "vnpu ID" adds a vNPU to the last device; vnpu-template, vnpu-aicores and vnpu-memory fill
// the last one, each once.
void decode_vnpu(const Record& r, LibraryDeviceFacts& d, std::optional<std::string>& error) {
  if (!arity(r, 1, error)) return;
  if (r.tag == "vnpu") {
    auto id = parse_uint(r.fields[0]);
    if (!id || *id > 0xffffffffu) {
      error = at(r, "bad vNPU id");
      return;
    }
    d.vnpus.push_back({static_cast<unsigned>(*id), {}, {}, {}});
    return;
  }
  if (d.vnpus.empty()) {
    error = at(r, cat({"'", r.tag, "' before any 'vnpu'"}));
    return;
  }
  auto& v = d.vnpus.back();
  if (r.tag == "vnpu-template") {
    if (v.template_name) error = at(r, "second 'vnpu-template'");
    v.template_name = r.fields[0];
  } else if (r.tag == "vnpu-aicores") {
    auto n = parse_double(r.fields[0]);
    if (!n || !(*n > 0 && *n <= 1024) || v.ai_cores)
      error = at(r, "bad or repeated 'vnpu-aicores'");
    if (!error) v.ai_cores = *n;
  } else {
    auto n = parse_uint(r.fields[0]);
    if (!n || v.memory_total_bytes) error = at(r, "bad or repeated 'vnpu-memory'");
    if (!error) v.memory_total_bytes = *n;
  }
}

// "xelinks" says Level Zero's fabric was read for the last device; each "xelink BUS EDGES"
// after it names a device it reaches over Xe Link and how many edges join them (judged by
// src/topo). "xelinks-unknown WHY" says the fabric could not be read.
void decode_xelink(const Record& r, LibraryDeviceFacts& d, std::optional<std::string>& error) {
  if (!arity(r, r.tag == "xelinks" ? 0 : r.tag == "xelink" ? 2 : 1, error)) return;
  if (r.tag != "xelink") {
    if (d.xelink) {
      error = at(r, cat({"second Xe Link state ('", r.tag, "')"}));
      return;
    }
    d.xelink.emplace();
    if (r.tag == "xelinks-unknown") d.xelink->unknown = r.fields[0];
    return;
  }
  if (!d.xelink || d.xelink->unknown) {
    error = at(r, "'xelink' without 'xelinks' before it");
    return;
  }
  auto peer = PciAddress::parse(r.fields[0]);
  auto& peers = d.xelink->peers;
  if (!peer || std::any_of(peers.begin(), peers.end(),
                           [&](const XeLinkPeer& p) { return p.address == *peer; })) {
    error = at(r, "bad or repeated 'xelink' address");
    return;
  }
  // Level Zero reads at most 4096 edges per vertex pair (fabric.cc), tiles summed: far below.
  auto edges = parse_uint(r.fields[1]);
  if (!edges || *edges == 0 || *edges > 1u << 20) {
    error = at(r, "bad 'xelink' edge count");
    return;
  }
  peers.push_back({*peer, static_cast<int>(*edges)});
}

bool is_xelink_tag(std::string_view tag) {
  return tag == "xelinks" || tag == "xelink" || tag == "xelinks-unknown";
}

bool is_hccs_tag(std::string_view tag) {
  return tag == "hccs-links" || tag == "hccs" || tag == "hccs-unknown";
}

bool is_vnpu_tag(std::string_view tag) {
  return tag == "vnpu" || tag == "vnpu-template" || tag == "vnpu-aicores" || tag == "vnpu-memory";
}

bool is_nvlink_tag(std::string_view tag) {
  return tag == "nvlinks" || tag == "nvlink" || tag == "nvlinks-unknown";
}

bool is_mig_tag(std::string_view tag) {
  return tag == "mig" || tag == "mig-uuid" || tag == "mig-profile" || tag == "mig-memory";
}

}  // namespace

std::string encode_probe_request(const ProbeRequest& request) {
  Writer w;
  w.header().line("root", {request.root});
  for (const auto& l : request.libraries) {
    w.line("library", {l.vendor, l.api});
    for (const auto& s : l.sonames) w.line("soname", {s});
    for (const auto& d : l.dirs) w.line("dir", {d});
  }
  return w.line("end").take();
}

Result<ProbeRequest> decode_probe_request(std::string_view text) {
  auto parsed = parse_records(text);
  if (auto e = header_error(parsed)) return bad_input(*e);
  if (parsed.error) return bad_input(*parsed.error);
  ProbeRequest req;
  std::optional<std::string> error;
  bool ended = false, rooted = false;
  for (size_t i = 1; i < parsed.records.size() && !error; ++i) {
    const auto& r = parsed.records[i];
    if (ended) {
      error = at(r, "data after 'end'");
    } else if (r.tag == "root" && arity(r, 1, error)) {
      if (rooted || !req.libraries.empty()) error = at(r, "'root' must come once, first");
      req.root = r.fields[0];
      rooted = true;
    } else if (r.tag == "library" && arity(r, 2, error)) {
      req.libraries.push_back({r.fields[0], r.fields[1], {}, {}});
    } else if ((r.tag == "soname" || r.tag == "dir") && arity(r, 1, error)) {
      if (req.libraries.empty()) {
        error = at(r, cat({"'", r.tag, "' before any 'library'"}));
      } else {
        auto& l = req.libraries.back();
        (r.tag == "soname" ? l.sonames : l.dirs).push_back(r.fields[0]);
      }
    } else if (r.tag == "end" && arity(r, 0, error)) {
      ended = true;
    } else if (!error) {
      error = at(r, cat({"unknown tag '", r.tag, "'"}));
    }
  }
  if (error) return bad_input(*error);
  if (!ended) return bad_input("request ends without 'end'");
  for (const auto& l : req.libraries)
    if (l.sonames.empty()) return bad_input("library " + l.vendor + " " + l.api + " has no soname");
  return req;
}

std::string encode_begin(std::string_view vendor, std::string_view api) {
  return Writer().line("begin", {vendor, api}).take();
}

std::string encode_library(const LibraryResult& result, const StrayOutput& output) {
  const auto& rep = result.report;
  Writer w;
  w.line("library", {rep.vendor, rep.api, to_string(rep.status)});
  if (rep.path) w.line("path", {*rep.path});
  if (rep.message && !rep.message->empty()) w.line("message", {*rep.message});
  if (result.driver_version) w.line("driver", {*result.driver_version});
  for (const auto& rt : result.runtimes) w.line("runtime", {rt.component, rt.version, rt.source});
  for (const auto& d : result.devices) {
    w.line("device", {d.address.str()});
    if (d.name) w.line("name", {*d.name});
    if (d.uuid) w.line("uuid", {*d.uuid});
    if (d.arch) w.line("arch", {*d.arch});
    if (d.memory_total_bytes) w.line("memory", {std::to_string(*d.memory_total_bytes)});
    for (const auto& m : d.mig) {
      w.line("mig", {std::to_string(m.gpu_instance), std::to_string(m.compute_instance)});
      if (m.uuid) w.line("mig-uuid", {*m.uuid});
      if (m.profile) w.line("mig-profile", {*m.profile});
      if (m.memory_total_bytes) w.line("mig-memory", {std::to_string(*m.memory_total_bytes)});
    }
    if (d.nvlink && d.nvlink->unknown) {
      w.line("nvlinks-unknown", {*d.nvlink->unknown});
    } else if (d.nvlink) {
      w.line("nvlinks");
      for (const auto& e : d.nvlink->active)
        w.line("nvlink", {std::to_string(e.link), std::to_string(e.domain), std::to_string(e.bus),
                          std::to_string(e.device), to_string(e.peer)});
    }
    if (d.hccs && d.hccs->unknown) {
      w.line("hccs-unknown", {*d.hccs->unknown});
    } else if (d.hccs) {
      w.line("hccs-links");
      for (const auto& p : d.hccs->peers) w.line("hccs", {p.str()});
    }
    if (d.xelink && d.xelink->unknown) {
      w.line("xelinks-unknown", {*d.xelink->unknown});
    } else if (d.xelink) {
      w.line("xelinks");
      for (const auto& p : d.xelink->peers)
        w.line("xelink", {p.address.str(), std::to_string(p.edges)});
    }
    for (const auto& v : d.vnpus) {
      w.line("vnpu", {std::to_string(v.vdev_id)});
      if (v.template_name) w.line("vnpu-template", {*v.template_name});
      if (v.ai_cores) w.line("vnpu-aicores", {shortest_decimal(*v.ai_cores)});
      if (v.memory_total_bytes) w.line("vnpu-memory", {std::to_string(*v.memory_total_bytes)});
    }
  }
  if (output.bytes)
    w.line("output", {std::to_string(output.bytes), output.excerpt.empty() ? "-" : output.excerpt});
  return w.line("done").take();
}

ProbeReply decode_probe_reply(std::string_view text) {
  ProbeReply reply;
  auto parsed = parse_records(text);
  if (auto e = header_error(parsed)) {
    reply.error = *e;
    return reply;
  }
  auto& error = reply.error;
  std::optional<ProbedLibrary> open;  // a `library` block not yet `done`
  auto device = [&](const Record& r) -> LibraryDeviceFacts* {
    if (!open || open->result.devices.empty()) {
      error = at(r, cat({"'", r.tag, "' outside a device"}));
      return nullptr;
    }
    return &open->result.devices.back();
  };
  auto text_field = [&](const Record& r, std::optional<std::string>& into) {
    if (!arity(r, 1, error)) return;
    if (into) error = at(r, cat({"second '", r.tag, "'"}));
    into = r.fields[0];
  };
  for (size_t i = 1; i < parsed.records.size() && !error; ++i) {
    const auto& r = parsed.records[i];
    if (reply.complete) {
      error = at(r, "data after 'end'");
    } else if (r.tag == "begin") {
      if (!arity(r, 2, error)) break;
      if (open || reply.in_progress) {
        error = at(r, "'begin' inside another library");
        break;
      }
      reply.in_progress = {r.fields[0], r.fields[1]};
    } else if (r.tag == "library") {
      if (!arity(r, 3, error)) break;
      if (open || !reply.in_progress || reply.in_progress->first != r.fields[0] ||
          reply.in_progress->second != r.fields[1]) {
        error = at(r, "'library' without its 'begin'");
        break;
      }
      // Timeout, crashed, exited and protocol-error are the parent's verdicts, never a worker's.
      auto status = parse_worker_library_status(r.fields[2]);
      if (!status) {
        error = at(r, "unknown status '" + encode_field(r.fields[2]) + "'");
        break;
      }
      open.emplace();
      open->result.report.vendor = r.fields[0];
      open->result.report.api = r.fields[1];
      open->result.report.status = *status;
    } else if (!open && r.tag != "end") {
      error = at(r, cat({"'", r.tag, "' outside a library"}));
    } else if (r.tag == "path") {
      text_field(r, open->result.report.path);
    } else if (r.tag == "message") {
      text_field(r, open->result.report.message);
    } else if (r.tag == "driver") {
      text_field(r, open->result.driver_version);
    } else if (r.tag == "runtime") {
      if (arity(r, 3, error))
        open->result.runtimes.push_back(
            {open->result.report.vendor, r.fields[0], r.fields[1], r.fields[2]});
    } else if (r.tag == "device") {
      if (!arity(r, 1, error)) break;
      auto address = PciAddress::parse(r.fields[0]);
      if (!address) {
        error = at(r, "bad PCI address");
        break;
      }
      open->result.devices.emplace_back().address = *address;
    } else if (r.tag == "name" || r.tag == "uuid" || r.tag == "arch") {
      if (auto* d = device(r))
        text_field(r, r.tag == "name" ? d->name : r.tag == "uuid" ? d->uuid : d->arch);
    } else if (r.tag == "memory") {
      auto* d = device(r);
      if (!d || !arity(r, 1, error)) break;
      auto v = parse_uint(r.fields[0]);
      if (!v || d->memory_total_bytes) {
        error = at(r, "bad or repeated 'memory'");
        break;
      }
      d->memory_total_bytes = *v;
    } else if (is_mig_tag(r.tag)) {
      if (auto* d = device(r)) decode_mig(r, *d, error);
    } else if (is_nvlink_tag(r.tag)) {
      if (auto* d = device(r)) decode_nvlink(r, *d, error);
    } else if (is_hccs_tag(r.tag)) {
      if (auto* d = device(r)) decode_hccs(r, *d, error);
    } else if (is_xelink_tag(r.tag)) {
      if (auto* d = device(r)) decode_xelink(r, *d, error);
    } else if (is_vnpu_tag(r.tag)) {
      if (auto* d = device(r)) decode_vnpu(r, *d, error);
    } else if (r.tag == "output") {
      if (!arity(r, 2, error)) break;
      auto n = parse_uint(r.fields[0]);
      if (!n || *n == 0 || open->output.bytes) {
        error = at(r, "bad or repeated 'output'");
        break;
      }
      open->output = {*n, r.fields[1] == "-" ? "" : r.fields[1]};
    } else if (r.tag == "done") {
      if (!arity(r, 0, error)) break;
      reply.libraries.push_back(std::move(*open));
      open.reset();
      reply.in_progress.reset();
    } else if (r.tag == "end") {
      if (!arity(r, 0, error)) break;
      if (open || reply.in_progress) {
        error = at(r, "'end' inside a library");
        break;
      }
      reply.complete = true;
    } else {
      error = at(r, cat({"unknown tag '", r.tag, "'"}));
    }
  }
  if (!error && parsed.error) error = parsed.error;
  return reply;
}

}  // namespace anygpu::worker
