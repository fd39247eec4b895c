#include "cli/help_dump.h"

#include <nlohmann/json.hpp>

#include "render/json_text.h"

namespace anygpu::cli {

namespace {

using json = nlohmann::ordered_json;

// CLI11 type names read "NAME" or "NAME:VALIDATOR"; an IsMember validator reads "{a,b,c}".
json value_of(const CLI::Option& opt) {
  json v = json::object();
  std::string type = opt.get_type_name();
  std::string name = type.substr(0, type.find(':'));
  v["name"] = name.empty() ? "VALUE" : name;
  auto open = type.find('{');
  auto close = type.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    json choices = json::array();
    std::string list = type.substr(open + 1, close - open - 1);
    for (size_t start = 0; start <= list.size();) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      if (comma > start) choices.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
    v["choices"] = choices;
  }
  return v;
}

json option_json(const CLI::Option& opt) {
  json o = json::object();
  o["help"] = opt.get_description();
  if (!opt.nonpositional()) {
    o["positional"] = opt.get_name(true, false);
    o["repeatable"] = opt.get_items_expected_max() > 1;
    return o;
  }
  json names = json::array();
  for (const auto& s : opt.get_snames()) names.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) names.push_back("--" + l);
  o["names"] = names;
  // A flag expects no item (CLI11 parses it as one when its expected count is 0).
  if (opt.get_items_expected_max() > 0) o["value"] = value_of(opt);
  return o;
}

json app_json(const CLI::App& app) {
  json a = json::object();
  a["name"] = app.get_name();
  a["description"] = app.get_description();
  json options = json::array();
  for (const CLI::Option* opt : app.get_options()) options.push_back(option_json(*opt));
  a["options"] = options;
  json commands = json::array();
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(app_json(*sub));
  a["commands"] = commands;
  return a;
}

}  // namespace

std::string describe_cli(const CLI::App& app, std::string_view version) {
  json doc = app_json(app);
  doc["schema"] = "anygpu.cli/v1";
  doc["version"] = std::string(version);
  return dump_json(doc);
}

}  // namespace anygpu::cli
