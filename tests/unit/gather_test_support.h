// Shared by the gather tests: fixture copies carrying what doctor, health and run read beyond
// discovery, and the readers' answers to compare a gathered copy with its source.
#pragma once

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace anygpu::test {

// Every host in tests/hosts (a new fixture is covered without a change here).
std::vector<std::string> fixture_host_names();

// What enrich_host() planted, for the tests to look for.
struct Planted {
  std::string hostname;   // the fixture's
  std::string spec_uuid;  // a GPU UUID named only in a CDI spec
  std::string mac = "a4:bf:01:23:45:67";
  std::string user = "alice";                            // a member of video and a user's own group
  std::string dsn = "\x11\x22\x33\x44\x55\x66\x77\x88";  // the first device's serial number
  std::string first_bus;  // the first device's bus id ("" on a host without one)
};

// A copy of fixture `name` at `dest` plus: /etc/group with members and a user's own group; a
// loader cache;
// device nodes mode 0660; CDI specs in /etc/cdi (one stale, one link loop) and in /var/run/cdi
// with /var/run an absolute link to /run; a kernel log with accelerator and other records (the
// host name, a MAC, a user); /proc/uptime; extended config space with a Device Serial Number.
Planted enrich_host(const std::string& name, const std::string& dest);

struct Identity {
  const char* name;
  uid_t uid;
  std::vector<gid_t> gids;
};
// root; a user who owns nothing and is in no group; a user in the device nodes' group.
std::vector<Identity> identities();

// The readers' answers on `root` (libraries off), with `root` itself written as "<root>".
std::string detect_json(const std::string& root);
std::string doctor_json(const std::string& root, const Identity& who);
std::string health_json(const std::string& root);
// Every path the readers read on `root`, for each identity.
std::set<std::string> paths_read(const std::string& root);

std::string read_file(const std::string& path);
// Every file's contents and link target beneath `top`, with names: to search for leaks.
std::string everything_in(const std::string& top);

}  // namespace anygpu::test
