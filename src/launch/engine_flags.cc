#include "launch/engine_flags.h"

#include <algorithm>

#include "util/strings.h"

namespace anygpu {

namespace {

struct FlagSpec {
  std::string_view name;  // long name, without dashes
  char shorthand;         // 0 when none
  bool takes_value;
};

// The `run` flags anygpu passes on: those podman and docker share that shape the workload
// (resources, network, names, mounts of data, environment) and grant nothing beyond the
// selection. Every other flag is refused, so a flag a newer engine adds is refused until it is
// listed here.
constexpr FlagSpec kAllowed[] = {
    {"add-host", 0, true},
    {"annotation", 0, true},
    {"attach", 'a', true},
    {"cidfile", 0, true},
    {"cpu-period", 0, true},
    {"cpu-quota", 0, true},
    {"cpu-shares", 'c', true},
    {"cpus", 0, true},
    {"cpuset-cpus", 0, true},
    {"cpuset-mems", 0, true},
    {"detach", 'd', false},
    {"dns", 0, true},
    {"dns-option", 0, true},
    {"dns-search", 0, true},
    {"entrypoint", 0, true},
    {"env", 'e', true},
    {"health-cmd", 0, true},
    {"health-interval", 0, true},
    {"health-retries", 0, true},
    {"health-start-period", 0, true},
    {"health-timeout", 0, true},
    {"hostname", 'h', true},
    {"init", 0, false},
    {"interactive", 'i', false},
    {"ip", 0, true},
    {"ip6", 0, true},
    {"label", 'l', true},
    {"log-driver", 0, true},
    {"log-opt", 0, true},
    {"mac-address", 0, true},
    {"memory", 'm', true},
    {"memory-reservation", 0, true},
    {"memory-swap", 0, true},
    {"mount", 0, true},
    {"name", 0, true},
    {"net", 0, true},
    {"network", 0, true},
    {"network-alias", 0, true},
    {"no-healthcheck", 0, false},
    {"oom-score-adj", 0, true},
    {"pids-limit", 0, true},
    {"platform", 0, true},
    {"publish", 'p', true},
    {"publish-all", 'P', false},
    {"pull", 0, true},
    {"quiet", 'q', false},
    {"read-only", 0, false},
    {"rm", 0, false},
    {"sig-proxy", 0, false},
    {"stop-signal", 0, true},
    {"stop-timeout", 0, true},
    {"tmpfs", 0, true},
    {"tty", 't', false},
    {"tz", 0, true},
    {"ulimit", 0, true},
    {"umask", 0, true},
    {"volume", 'v', true},
    {"workdir", 'w', true},
};

// Flags whose effect anygpu decides itself or never grants: named in the refusal so the user
// learns why, not just that the flag is unknown.
constexpr FlagSpec kWidening[] = {
    {"privileged", 0, false},
    {"cap-add", 0, true},
    {"device", 0, true},
    {"device-cgroup-rule", 0, true},
    {"security-opt", 0, true},
    {"user", 'u', true},
    {"userns", 0, true},
    {"pid", 0, true},
    {"ipc", 0, true},
    {"uts", 0, true},
    {"cgroupns", 0, true},
    {"cgroup-parent", 0, true},
    {"group-add", 0, true},
    {"volumes-from", 0, true},
    {"gpus", 0, true},
    {"runtime", 0, true},
    {"oci-hooks-dir", 0, true},
    {"hooks-dir", 0, true},
    {"env-file", 0, true},
    {"env-host", 0, false},
    {"env-merge", 0, true},
    {"cap-drop", 0, true},
    {"shm-size", 0, true},
    {"sysctl", 0, true},
    {"hostuser", 0, true},
    {"uidmap", 0, true},
    {"gidmap", 0, true},
    {"subuidname", 0, true},
    {"subgidname", 0, true},
    {"device-read-bps", 0, true},
    {"mount-namespace", 0, true},
    {"systemd", 0, true},
    {"rootfs", 0, false},
};

template <size_t N>
const FlagSpec* find_long(const FlagSpec (&table)[N], std::string_view name) {
  for (const auto& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

template <size_t N>
const FlagSpec* find_short(const FlagSpec (&table)[N], char c) {
  for (const auto& f : table)
    if (f.shorthand == c) return &f;
  return nullptr;
}

Error widening(std::string_view written, std::string_view name) {
  std::string why = "would give the container more than the selected devices";
  if (name == "user") why = "anygpu runs the container as --user (use anygpu's --user)";
  if (name == "shm-size") why = "anygpu sets it (use anygpu's --shm-size)";
  if (name == "cap-drop") why = "anygpu already drops every capability";
  if (name.starts_with("env-"))
    why = "anygpu cannot see which variables it sets (pass each as --engine-arg=--env=NAME=VALUE)";
  return bad_input(cat({"--engine-arg '", written, "': --", name, " ", why}));
}

Error unknown(std::string_view written, std::string_view flag) {
  return bad_input(cat({"--engine-arg '", written, "': ", flag,
                        " is not a container-engine flag anygpu passes on (resources, network, "
                        "names, labels, --env, --volume and --mount of data are)"}));
}

// Walks the arguments as pflag does: each one is a long flag or a group of short flags, and
// take_next() consumes the following argument as the value of a flag that needs one and has
// none glued to it.
class Splitter {
 public:
  explicit Splitter(const std::vector<std::string>& args) : args_(args) {}

  Result<std::vector<EngineFlag>> run() {
    std::vector<EngineFlag> out;
    for (i_ = 0; i_ < args_.size(); ++i_) {
      const std::string& a = args_[i_];
      if (has_control_char(a))
        return bad_input(cat({"--engine-arg: a control character in '", escape_control(a), "'"}));
      if (a == "--")
        return bad_input("--engine-arg '--': it would end the engine's options before the image");
      if (a.size() < 2 || a[0] != '-')
        return bad_input(cat({"--engine-arg '", a,
                              "': not a flag; the engine would read it as the image (a flag's "
                              "value goes with it: --engine-arg=--name=VALUE)"}));
      auto step = a[1] == '-' ? long_flag(a, out) : short_flags(a, out);
      if (step) return *step;
    }
    return out;
  }

 private:
  std::optional<Error> long_flag(const std::string& a, std::vector<EngineFlag>& out) {
    std::string_view body = std::string_view(a).substr(2);
    auto eq = body.find('=');
    std::string_view name = body.substr(0, eq);
    if (const auto* w = find_long(kWidening, name)) return widening(a, w->name);
    const auto* f = find_long(kAllowed, name);
    if (!f) return unknown(a, cat({"--", name}));
    EngineFlag flag{std::string(f->name), std::nullopt, a};
    if (eq != std::string_view::npos)
      flag.value = std::string(body.substr(eq + 1));
    else if (f->takes_value) {
      auto v = take_next(a);
      if (!v) return v.error();
      flag.value = *v;
      flag.written += " " + *v;
    }
    out.push_back(std::move(flag));
    return std::nullopt;
  }

  // pflag's shorthand rules: `-abc` is -a -b -c while each is boolean; the first that takes a
  // value takes the rest of the argument (after an optional '='), or the next argument.
  std::optional<Error> short_flags(const std::string& a, std::vector<EngineFlag>& out) {
    for (size_t k = 1; k < a.size(); ++k) {
      char c = a[k];
      if (const auto* w = find_short(kWidening, c)) return widening(a, w->name);
      const auto* f = find_short(kAllowed, c);
      if (!f) return unknown(a, std::string("-") + c);
      EngineFlag flag{std::string(f->name), std::nullopt, a};
      std::string_view rest = std::string_view(a).substr(k + 1);
      if (!rest.empty() && rest[0] == '=') {
        flag.value = std::string(rest.substr(1));
        out.push_back(std::move(flag));
        return std::nullopt;
      }
      if (f->takes_value) {
        if (!rest.empty()) {
          flag.value = std::string(rest);
        } else {
          auto v = take_next(a);
          if (!v) return v.error();
          flag.value = *v;
          flag.written += " " + *v;
        }
        out.push_back(std::move(flag));
        return std::nullopt;
      }
      out.push_back(std::move(flag));
    }
    return std::nullopt;
  }

  Result<std::string> take_next(const std::string& a) {
    if (i_ + 1 >= args_.size())
      return bad_input(
          cat({"--engine-arg '", a, "' needs a value: give it in the same argument (", a,
               "=VALUE), or the engine takes anygpu's next argument as the value"}));
    ++i_;
    if (has_control_char(args_[i_]))
      return bad_input(
          cat({"--engine-arg: a control character in '", escape_control(args_[i_]), "'"}));
    return args_[i_];
  }

  const std::vector<std::string>& args_;
  size_t i_ = 0;
};

// Host paths a bind mount must not expose: device nodes (beyond the selection), the kernel's
// interfaces, and the engines' own sockets (control of the engine is root on the host).
std::optional<std::string> forbidden_source(std::string_view src) {
  if (src.empty() || src[0] != '/') return std::nullopt;  // a named volume
  std::string path(src);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  static constexpr std::string_view kUnder[] = {"/dev", "/proc", "/sys"};
  static constexpr std::string_view kSockets[] = {
      "/run/docker.sock", "/var/run/docker.sock", "/run/podman", "/var/run/podman",
      "/run/containerd",  "/var/run/containerd",  "/run/user"};
  if (path == "/" || path.find("/..") != std::string::npos || path.find("//") != std::string::npos)
    return path;
  for (auto u : kUnder)
    if (path == u || path.starts_with(cat({u, "/"}))) return path;
  for (auto s : kSockets)
    if (path == s || path.starts_with(cat({s, "/"}))) return path;
  return std::nullopt;
}

// One CSV record as Go's encoding/csv reads it (the engines parse --mount with it): fields split
// at ',', a field that starts with '"' is quoted and "" inside it is one quote. A quote anywhere
// else, or one left open, is an error there too.
std::optional<std::vector<std::string>> csv_record(std::string_view s) {
  std::vector<std::string> fields(1);
  size_t i = 0;
  while (i <= s.size()) {
    auto& f = fields.back();
    if (i < s.size() && s[i] == '"') {
      for (++i;; ++i) {
        if (i >= s.size()) return std::nullopt;  // never closed
        if (s[i] == '"' && (i + 1 >= s.size() || s[i + 1] != '"')) break;
        if (s[i] == '"') ++i;
        f += s[i];
      }
      ++i;
      if (i < s.size() && s[i] != ',') return std::nullopt;
    } else {
      auto end = std::min(s.find(',', i), s.size());
      if (s.substr(i, end - i).find('"') != std::string_view::npos) return std::nullopt;
      f += s.substr(i, end - i);
      i = end;
    }
    if (i >= s.size()) break;
    ++i;  // the ','
    fields.emplace_back();
  }
  return fields;
}

// The source of a `--volume SRC:DST[:OPTS]` or a `--mount` record (`type=bind,src=…`, the record
// anygpu writes itself, engine_args.h); `type` is the mount's type (volume by default). Keys are
// read without regard to case, as Docker reads them. Absent: a record the engine would refuse.
struct MountSource {
  std::string type = "volume";
  std::optional<std::string> source;
};

std::optional<MountSource> mount_source(const EngineFlag& f) {
  MountSource m;
  if (f.name == "volume") {
    m.type = "bind";
    m.source = f.value->substr(0, f.value->find(':'));
    return m;
  }
  auto fields = csv_record(*f.value);
  if (!fields) return std::nullopt;
  for (const auto& field : *fields) {
    auto eq = field.find('=');
    auto key = to_lower(trim(std::string_view(field).substr(0, eq)));
    auto value =
        eq == std::string::npos ? std::string_view() : trim(std::string_view(field).substr(eq + 1));
    if (key == "type") m.type = to_lower(value);
    if (key == "src" || key == "source") m.source = std::string(value);
  }
  return m;
}

std::optional<Error> check_flag(const EngineFlag& f,
                                const std::vector<std::string>& protected_env) {
  if (f.name == "env") {
    auto name = std::string_view(*f.value).substr(0, f.value->find('='));
    if (name.find('*') != std::string_view::npos)
      return bad_input(cat({"--engine-arg '", f.written, "': a variable pattern ('", name,
                            "') could pass on a variable anygpu sets; name each variable"}));
    if (std::find(protected_env.begin(), protected_env.end(), name) != protected_env.end())
      return bad_input(cat({"--engine-arg '", f.written, "': anygpu sets ", name,
                            " in the container itself, from the selection and the vendor's "
                            "container rules (choose devices with --devices or the config)"}));
  }
  if (f.name == "volume" || f.name == "mount") {
    auto mount = mount_source(f);
    if (!mount)
      return bad_input(cat({"--engine-arg '", f.written,
                            "': not one CSV record (a quote left open or inside a field)"}));
    const auto& m = *mount;
    if (m.type != "bind" && m.type != "volume" && m.type != "tmpfs")
      return bad_input(cat({"--engine-arg '", f.written, "': a ", m.type,
                            " mount is not passed on (bind, volume and tmpfs are)"}));
    if (m.source)
      if (auto bad = forbidden_source(*m.source))
        return bad_input(cat({"--engine-arg '", f.written, "': mounting ", *bad,
                              " would give the container host devices, kernel interfaces or "
                              "the engine's socket beyond the selection"}));
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<EngineFlag>> parse_engine_flags(const std::vector<std::string>& args) {
  return Splitter(args).run();
}

std::optional<Error> check_engine_args(const std::vector<std::string>& args,
                                       const std::vector<std::string>& protected_env) {
  auto flags = parse_engine_flags(args);
  if (!flags) return flags.error();
  for (const auto& f : *flags)
    if (f.value)
      if (auto e = check_flag(f, protected_env)) return e;
  return std::nullopt;
}

}  // namespace anygpu
