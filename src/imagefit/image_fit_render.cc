// The two documents of `anygpu image check`: anygpu.image-check/v1 and the text for people.
#include "imagefit/image_fit.h"
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
  j["devices"] = nlohmann::ordered_json::array();
  for (const auto& d : fit.devices) {
    nlohmann::ordered_json o;
    o["pci_bus_id"] = d.pci_bus_id;
    o["verdict"] = verdict_word(d.verdict);
    o["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : d.findings)
      o["findings"].push_back({{"code", f.code},
                               {"severity", image_severity_word(f.severity)},
                               {"message", f.message},
                               {"evidence", f.evidence},
                               {"action", f.action}});
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
  if (fit.frameworks.empty() && fit.code_objects.empty())
    s += "  no framework build or GPU code found\n";
  if (fit.devices.empty()) s += "no accelerator on this host: nothing to judge\n";
  for (const auto& d : fit.devices) {
    s += cat({verdict_word(d.verdict), "  ", d.pci_bus_id, "  ", d.label, "\n"});
    for (const auto& f : d.findings) {
      s += cat({"    ", image_severity_word(f.severity), " ", f.code, ": ", f.message, "\n"});
      if (!f.evidence.empty()) s += cat({"      ", f.evidence, "\n"});
      if (!f.action.empty()) s += cat({"      fix: ", f.action, "\n"});
    }
  }
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace anygpu
