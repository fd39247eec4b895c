#include "health/health_client.h"

#include <set>

#include "health/health_protocol.h"
#include "probe/libs/library_probe.h"
#include "probe/libs/probe_protocol.h"
#include "util/strings.h"
#include "vendorlib/apis.h"
#include "worker/locate.h"
#include "worker/message.h"
#include "worker/process.h"

namespace anygpu::worker {

namespace {

health::LibraryOutcome outcome(std::string api, std::string_view reason, std::string detail) {
  return {std::move(api), std::string(reason), std::move(detail)};
}

// One worker for one vendor's libraries; its outcome goes to out.vendors[vendor].
void ask(const HostRoot& host, const std::string& vendor, std::vector<LibraryRequest> libs,
         health::LibraryHealth& out) {
  auto name = cat({vendor, " library health"});
  auto& result = out.vendors[vendor];
  result = outcome(libs.front().api, "error", {});
  auto exe = worker_executable();
  if (!exe) {
    out.warnings.push_back(cat({name, ": ", exe.error().message}));
    result.detail = exe.error().message;
    return;
  }
  auto p = Process::spawn(*exe, "health");
  if (!p) {
    out.warnings.push_back(cat({name, ": ", p.error().message}));
    result.detail = p.error().message;
    return;
  }
  auto timeout = host.options().library_timeout;
  auto deadline = Clock::now() + timeout;
  ProbeRequest req;
  req.root = host.options().root;
  req.libraries = std::move(libs);
  (*p)->send(encode_probe_request(req), deadline);
  (*p)->close_input();
  std::string buffer;
  auto end = (*p)->read_until(buffer, deadline, ends_with_end_line);
  auto reply = decode_health_reply(buffer);
  for (auto& [bus, facts] : reply.devices) out.devices[bus] = std::move(facts);
  bool clean = end == ReadEnd::complete && reply.complete && !reply.error;
  Exit exit = (*p)->wait(clean ? deadline : end == ReadEnd::deadline ? Clock::now() : deadline);
  if (reply.api) result.api = *reply.api;
  if (reply.library_error) {
    out.warnings.push_back(cat({name, ": ", *reply.library_error}));
    result.detail = *reply.library_error;
    return;
  }
  if (clean) {
    // No library line: the worker found none of them to load.
    result = reply.api ? outcome(result.api, "", {})
                       : outcome(result.api, "absent", "none of the vendor's libraries loads");
    return;
  }
  auto failure = classify(end, exit, timeout, reply.error, (*p)->output_excerpt());
  result.reason = std::string(to_string(failure.status));
  result.detail = failure.message;
  out.warnings.push_back(
      cat({name, ": ", failure.message, "; ", std::to_string(reply.devices.size()),
           " device(s) read before that, the rest have no library health facts"}));
}

}  // namespace

health::LibraryHealth read_library_health(const HostRoot& host, const Inventory& inv,
                                          const Registry& registry) {
  health::LibraryHealth out;
  std::set<std::string> vendors;
  for (const auto& d : inv.devices)
    if (d.status != DeviceStatus::suspended) vendors.insert(d.vendor);
  for (const auto& id : vendors) {
    const auto* v = registry.vendor(id);
    if (!v) continue;
    std::vector<LibraryRequest> libs;
    std::optional<health::LibraryOutcome> missing;
    for (const auto& spec : v->libraries) {
      if (!answers_health(spec.api)) continue;
      auto req = library_request(*v, spec);
      if (!host.options().load_libraries) {
        missing = outcome(req.api, "disabled", "--no-libs");
        break;
      }
      if (auto m = missing_without_loading(host, req)) {  // not on this host
        if (!missing) missing = outcome(req.api, "absent", m->report.message.value_or(""));
        continue;
      }
      libs.push_back(std::move(req));
    }
    if (!libs.empty())
      ask(host, id, std::move(libs), out);
    else if (missing)
      out.vendors[id] = std::move(*missing);
  }
  return out;
}

}  // namespace anygpu::worker
