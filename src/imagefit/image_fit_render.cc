// The two documents of `anygpu image check`: anygpu.image-check/v1 and the text for people.
#include "imagefit/image_fit.h"

#include <algorithm>

#include "util/strings.h"

namespace anygpu {

namespace {

std::string_view verdict_word(FitVerdict v) {
  switch (v) {
    case FitVerdict::fail:
      return "fail";
    case FitVerdict::warning:
      return "warning";
    case FitVerdict::ok:
      return "ok";
  }
  return "fail";
}

std::string_view image_severity_word(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "info";
  }
  return "error";
}

nlohmann::ordered_json framework_json(const ImageFramework& f) {
  nlohmann::ordered_json j;
  j["name"] = f.name;
  j["version"] = f.version;
  if (f.cuda) j["cuda"] = *f.cuda;
  if (f.hip) j["hip"] = *f.hip;
  j["file"] = f.file;
  j["layer"] = f.layer;
  return j;
}

nlohmann::ordered_json findings_json(const std::vector<Finding>& findings) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& f : findings)
    out.push_back({{"code", f.code},
                   {"severity", image_severity_word(f.severity)},
                   {"message", f.message},
                   {"evidence", f.evidence},
                   {"action", f.action}});
  return out;
}

nlohmann::ordered_json compat_json(const ImageCompat& c) {
  nlohmann::ordered_json j;
  j["file"] = c.file;
  j["layer"] = c.layer;
  if (!c.compat.driver_version.empty()) j["driver_version"] = c.compat.driver_version;
  if (c.compat.note) {
    j["cuda_version"] = c.compat.note->cuda_version;
    j["drivers"] = c.compat.note->drivers;
  }
  if (c.compat.unread) j["note_unread"] = *c.compat.unread;
  return j;
}

std::string compat_text(const ImageCompat& c) {
  auto s = cat({"  compat    ", c.file, ": driver ",
                c.compat.driver_version.empty() ? "unknown" : c.compat.driver_version});
  if (c.compat.note) {
    std::vector<std::string> b;
    for (int d : c.compat.note->drivers) b.push_back(std::to_string(d));
    s += cat({", CUDA ", c.compat.note->cuda_version, ", admits driver branches ",
              b.empty() ? "none" : join(b, " ")});
  } else {
    s += c.compat.unread ? cat({", note unread: ", *c.compat.unread}) : ", no note";
  }
  return s + "\n";
}

void findings_text(const std::vector<Finding>& findings, std::string_view indent, std::string& s) {
  for (const auto& f : findings) {
    s += cat({indent, image_severity_word(f.severity), " ", f.code, ": ", f.message, "\n"});
    if (!f.evidence.empty()) s += cat({indent, "  ", f.evidence, "\n"});
    if (!f.action.empty()) s += cat({indent, "  fix: ", f.action, "\n"});
  }
}

}  // namespace

nlohmann::ordered_json render_image_fit_json(const ImageFit& fit) {
  nlohmann::ordered_json j;
  j["schema"] = "anygpu.image-check/v1";
  j["image"]["id"] = fit.id;
  if (!fit.ref.empty()) j["image"]["ref"] = fit.ref;
  j["frameworks"] = nlohmann::ordered_json::array();
  for (const auto& f : fit.frameworks) j["frameworks"].push_back(framework_json(f));
  j["code_objects"] = nlohmann::ordered_json::array();
  for (const auto& c : fit.code_objects) {
    nlohmann::ordered_json o;
    o["file"] = c.file;
    o["layer"] = c.layer;
    o["archs"] = c.objects.arch_names();
    if (c.objects.unread_bundles) o["unread_bundles"] = c.objects.unread_bundles;
    j["code_objects"].push_back(std::move(o));
  }
  if (!fit.compat.empty()) {
    j["cuda_compat"] = nlohmann::ordered_json::array();
    for (const auto& c : fit.compat) j["cuda_compat"].push_back(compat_json(c));
  }
  j["devices"] = nlohmann::ordered_json::array();
  for (const auto& d : fit.devices) {
    nlohmann::ordered_json o;
    o["pci_bus_id"] = d.pci_bus_id;
    o["verdict"] = verdict_word(d.verdict);
    o["findings"] = findings_json(d.findings);
    if (!d.partitions.empty()) {
      o["partitions"] = nlohmann::ordered_json::array();
      for (const auto& p : d.partitions) {
        nlohmann::ordered_json po;
        po["id"] = p.id;
        if (p.profile) po["profile"] = *p.profile;
        po["verdict"] = verdict_word(p.verdict);
        po["findings"] = findings_json(p.findings);
        o["partitions"].push_back(std::move(po));
      }
    }
    j["devices"].push_back(std::move(o));
  }
  return j;
}

std::string render_image_fit_text(const ImageFit& fit) {
  std::string s =
      cat({"image ", fit.ref.empty() ? fit.id : cat({fit.ref, " (", fit.id, ")"}), "\n"});
  for (const auto& f : fit.frameworks)
    s += cat({"  framework ", f.name, " ", f.version, "  ", f.file, "\n"});
  for (const auto& c : fit.code_objects) {
    auto archs = join(c.objects.arch_names(), " ");
    if (c.objects.unread_bundles)
      archs += cat({archs.empty() ? "" : " ", "+", std::to_string(c.objects.unread_bundles),
                    " unread bundle(s)"});
    s += cat({"  code      ", c.file, ": ", archs, "\n"});
  }
  for (const auto& c : fit.compat) s += compat_text(c);
  if (fit.frameworks.empty() && fit.code_objects.empty())
    s += "  no framework build or GPU code found\n";
  if (fit.devices.empty()) s += "no accelerator on this host: nothing to judge\n";
  for (const auto& d : fit.devices) {
    s += cat({verdict_word(d.verdict), "  ", d.pci_bus_id, "  ", d.label, "\n"});
    findings_text(d.findings, "    ", s);
    for (const auto& p : d.partitions) {
      s += cat({"    partition ", p.id, p.profile ? cat({" (", *p.profile, ")"}) : "", ": ",
                verdict_word(p.verdict), "\n"});
      // The partition's findings repeat the device's as a rule; only what differs is shown.
      std::vector<Finding> own;
      for (const auto& f : p.findings)
        if (std::none_of(d.findings.begin(), d.findings.end(), [&](const Finding& g) {
              return g.code == f.code && g.message == f.message;
            }))
          own.push_back(f);
      findings_text(own, "      ", s);
    }
  }
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace anygpu
