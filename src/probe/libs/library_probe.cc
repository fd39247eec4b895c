#include "probe/libs/library_probe.h"

#include "util/strings.h"
#include "vendorlib/apis.h"

namespace anygpu {

LibraryRequest library_request(const Vendor& vendor, const LibrarySpec& spec) {
  return {std::string(vendor.id), std::string(spec.api),
          std::vector<std::string>(spec.sonames.begin(), spec.sonames.end()),
          std::vector<std::string>(spec.dirs.begin(), spec.dirs.end())};
}

namespace {

struct Names {
  std::vector<std::string_view> sonames, dirs;
  explicit Names(const LibraryRequest& r)
      : sonames(r.sonames.begin(), r.sonames.end()), dirs(r.dirs.begin(), r.dirs.end()) {}
};

LibraryResult start_result(const LibraryRequest& request) {
  LibraryResult r;
  r.report.vendor = request.vendor;
  r.report.api = request.api;
  return r;
}

}  // namespace

std::optional<LibraryResult> missing_without_loading(const HostRoot& host,
                                                     const LibraryRequest& request) {
  if (host.is_real_root()) return std::nullopt;
  Names n(request);
  if (host.find_library(n.sonames, n.dirs)) return std::nullopt;
  LibraryResult r = start_result(request);
  r.report.status = LibraryStatus::missing;
  r.report.message = join(request.sonames, ", ") + ": not found";
  return r;
}

LibraryResult probe_library(const HostRoot& host, const LibraryRequest& request) {
  LibraryResult r = start_result(request);
  Names n(request);
  const auto* api = find_library_api(request.api);
  auto lib = host.open_library(n.sonames, n.dirs);
  if (!lib) {
    bool absent = !host.find_library(n.sonames, n.dirs).has_value();
    r.report.status = absent ? LibraryStatus::missing : LibraryStatus::error;
    if (!host.options().load_libraries) r.report.status = LibraryStatus::disabled;
    r.report.message = lib.error().message;
    return r;
  }
  r.report.path = (*lib)->loaded_from();
  if (api && !api->init_symbol.empty() && !(*lib)->raw_symbol(api->init_symbol)) {
    r.report.status = LibraryStatus::error;
    r.report.message = cat({"missing symbol ", api->init_symbol});
    return r;
  }
  if (!api || !api->probe) {
    r.report.status = LibraryStatus::found;
    return r;
  }
  api->probe(**lib, r);
  return r;
}

bool ends_search(const LibraryResult& result) {
  const auto* api = find_library_api(result.report.api);
  return api && api->probe && result.report.status == LibraryStatus::loaded;
}

}  // namespace anygpu
