#include "cluster/slurm_drain.h"

#include "util/strings.h"

namespace anygpu {

namespace {

std::string printable(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c < '!' || c > '~' || c == '"') c = '?';
  return out;
}

bool is_host_name(std::string_view s) {
  if (s.empty() || s.size() > 255) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string drain_reason(const health::NodeVerdict& verdict) {
  if (verdict.culprits.empty()) return "";
  const auto& worst = verdict.culprits.front();
  auto reason = cat({"anygpu: ", printable(worst.code), " ", printable(worst.pci_bus_id)});
  if (verdict.culprits.size() > 1)
    reason += cat({" +", std::to_string(verdict.culprits.size() - 1), " more"});
  if (reason.size() > kMaxDrainReason) reason.resize(kMaxDrainReason);
  return reason;
}

std::vector<std::string> drain_argv(const std::string& node, const std::string& reason) {
  return {"scontrol", "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason};
}

Result<std::string> slurm_node_name(const char* slurmd_nodename, std::string_view hostname) {
  if (slurmd_nodename && *slurmd_nodename) {
    if (!is_host_name(slurmd_nodename))
      return bad_input(cat({"SLURMD_NODENAME \"", escape_control(slurmd_nodename),
                            "\" is not one node name ([A-Za-z0-9._-])"}));
    return std::string(slurmd_nodename);
  }
  auto short_name = hostname.substr(0, hostname.find('.'));
  if (!is_host_name(short_name))
    return bad_input(cat({"host name \"", escape_control(hostname),
                          "\" is not a Slurm node name; set SLURMD_NODENAME"}));
  return std::string(short_name);
}

}  // namespace anygpu
