#include "launch/plan_json.h"

namespace anygpu {

nlohmann::ordered_json plan_to_json(const LaunchPlan& plan) {
  nlohmann::ordered_json j;
  j["schema"] = kPlanSchema;
  j["mode"] = plan.mode;
  j["argv"] = plan.argv;
  auto env = nlohmann::ordered_json::object();
  for (const auto& [name, value] : plan.env) env[name] = value;
  j["env"] = env;
  j["unset"] = plan.unset_env;
  auto devices = nlohmann::ordered_json::array();
  for (const auto& d : plan.devices) {
    nlohmann::ordered_json dj;
    dj["vendor"] = d.vendor;
    dj["index"] = d.index;
    dj["bus_id"] = d.bus_id;
    dj["nodes"] = d.nodes;
    if (d.partition) dj["partition"] = {{"index", d.partition->index}, {"id", d.partition->id}};
    devices.push_back(dj);
  }
  j["devices"] = devices;
  j["engine"] = plan.engine ? nlohmann::ordered_json(*plan.engine) : nlohmann::ordered_json();
  return j;
}

}  // namespace anygpu
