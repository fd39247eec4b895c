// `anygpu wheel [PACKAGE[==VERSION]]`: which framework build fits this host, and the exact
// pip/uv command. The table is --data FILE, else ANYGPU_WHEELS's file, else the built-in
// data/wheels.yaml.
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "registry/registry.h"
#include "util/strings.h"
#include "wheel/choose.h"
#include "wheel/recommend.h"

namespace anygpu::cli {

namespace {

struct WheelFlags {
  std::string spec = "torch";
  std::string data;
  std::string vendor;
};

Result<WheelRequest> parse_spec(const std::string& spec) {
  WheelRequest req;
  auto eq = spec.find("==");
  req.package = std::string(trim(std::string_view(spec).substr(0, eq)));
  if (eq != std::string::npos) {
    auto v = std::string(trim(std::string_view(spec).substr(eq + 2)));
    if (v.empty()) return bad_input(cat({"'", spec, "': expected PACKAGE==VERSION"}));
    req.version = v;
  }
  if (req.package.empty() || req.package.find_first_of("<>=!~ ") != std::string::npos)
    return bad_input(
        cat({"'", spec, "': expected PACKAGE or PACKAGE==VERSION, e.g. torch==2.9.1"}));
  return req;
}

nlohmann::ordered_json to_json(const Recommendation& r) {
  const auto& c = r.now;
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.wheel/v1";
  j["package"] = c.package;
  j["version"] = c.version.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.version);
  j["vendor"] = c.vendor;
  j["variant"] = c.variant;
  auto or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
  };
  j["index_url"] = or_null(c.index_url);
  j["pip"] = or_null(c.pip);
  j["uv"] = or_null(c.uv);
  j["reason"] = c.reason;
  auto alts = nlohmann::ordered_json::array();
  for (const auto& a : c.alternatives) {
    nlohmann::ordered_json x;
    if (!a.variant.empty()) x["variant"] = a.variant;
    if (!a.index_url.empty()) x["index_url"] = a.index_url;
    x["fits"] = a.fits;
    x["note"] = a.note;
    alts.push_back(std::move(x));
  }
  j["alternatives"] = std::move(alts);
  j["runs_now"] = !r.pin_cannot_run;
  nlohmann::ordered_json later;
  if (const auto& u = r.after_upgrade) {
    later["version"] = u->version;
    later["variant"] = u->variant;
    later["index_url"] = or_null(u->index_url);
    later["pip"] = or_null(u->pip);
    later["uv"] = or_null(u->uv);
    later["needs"] = u->needs;
  }
  j["after_upgrade"] = std::move(later);
  return j;
}

std::string to_text(const Recommendation& r) {
  const auto& c = r.now;
  std::string s = cat({c.package, c.version.empty() ? "" : " ", c.version, " for this host (",
                       c.vendor, "): ", c.variant, "\n"});
  if (!c.pip.empty())
    s += cat({"  pip: ", c.pip, "\n  uv:  ", c.uv, "\n"});
  else
    s += "  no public package index known for this build\n";
  s += cat({"  why: ", c.reason, "\n"});
  if (const auto& u = r.after_upgrade) {
    s += cat({"  after an upgrade: ", u->package, " ", u->version, " ", u->variant,
              ", once the host has ", u->needs, "\n"});
    if (!u->pip.empty()) s += cat({"    pip: ", u->pip, "\n"});
  }
  for (const auto& a : c.alternatives)
    s += cat({"  ", a.fits ? "alternative " : "not        ", a.variant.empty() ? "" : a.variant,
              a.variant.empty() ? "" : ": ", a.note, "\n"});
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

Command wheel_command() {
  return {
      "wheel", "which framework build (torch wheel variant) fits this host", [](CLI::App& app) {
        auto f = std::make_shared<WheelFlags>();
        app.add_option("package", f->spec, "PACKAGE or PACKAGE==VERSION (default torch, newest)")
            ->type_name("PACKAGE[==VERSION]");
        app.add_option(
               "--data", f->data,
               "wheel table to use instead of the built-in data/wheels.yaml (or ANYGPU_WHEELS)")
            ->type_name("FILE");
        app.add_option("--vendor", f->vendor,
                       "decide for this vendor's devices (mixed hosts; default: the discrete "
                       "accelerator)")
            ->type_name("VENDOR");
        return [f](const GlobalOptions& g) {
          auto req = parse_spec(f->spec);
          if (!req) return fail(req.error());
          if (!f->vendor.empty()) {
            if (f->vendor != "none" && !Registry::builtin().vendor(f->vendor))
              return fail(bad_input(
                  cat({"--vendor ", f->vendor, ": not a vendor id (anygpu vendors lists them)"})));
            req->vendor = f->vendor;
          }
          auto data = f->data.empty() ? Result<WheelData>(wheel_data()) : load_wheel_data(f->data);
          if (!data) return fail(data.error());
          auto opts = g.host_options();
          if (!opts) return fail(opts.error());
          HostRoot host(*opts);
          auto inv = discover(g, host);
          auto rec = recommend_build(*data, inv, *req);
          if (!rec) return fail(rec.error());
          g.json ? print_json(g, to_json(*rec)) : print_text(to_text(*rec));
          if (rec->pin_cannot_run)
            return fail(
                host_error(cat({rec->now.package, " ", *req->version,
                                ": no build of this release runs on this host's devices "
                                "now (anygpu wheel without a version names one that does)"})));
          return kExitOk;
        };
      }};
}

}  // namespace anygpu::cli
