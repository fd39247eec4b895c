#include "health/health_protocol.h"

#include "model/inventory.h"
#include "util/strings.h"
#include "worker/message.h"

namespace anygpu::worker {

namespace {

std::string num(uint64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string encode_health_status(std::string_view vendor, std::string_view api,
                                 const std::optional<std::string>& error) {
  Writer w;
  if (error)
    w.line("library", {vendor, api, "error", error->empty() ? "-" : *error});
  else
    w.line("library", {vendor, api, "loaded"});
  return w.take();
}

std::string encode_health_device(std::string_view bus_id, const health::DeviceLibraryFacts& f) {
  Writer w;
  w.line("device", {bus_id});
  if (f.ecc_volatile)
    w.line("ecc", {"volatile", num(f.ecc_volatile->corrected), num(f.ecc_volatile->uncorrected)});
  if (f.ecc_aggregate)
    w.line("ecc",
           {"aggregate", num(f.ecc_aggregate->corrected), num(f.ecc_aggregate->uncorrected)});
  if (const auto& r = f.remapped_rows)
    w.line("remap",
           {num(r->corrected), num(r->uncorrected), r->pending ? "1" : "0", r->failed ? "1" : "0"});
  if (const auto& p = f.retired_pages)
    w.line("retired",
           {num(p->single_bit), num(p->double_bit), p->pending ? (*p->pending ? "1" : "0") : "-"});
  if (f.clocks_event_reasons) w.line("clocks-event", {num(*f.clocks_event_reasons)});
  if (f.alarm) w.line("alarm", {num(*f.alarm)});
  if (f.fault_codes) {
    std::vector<std::string> codes;
    for (auto c : *f.fault_codes) codes.push_back(hex(c, 8).substr(2));  // no 0x: as Ascend writes
    w.line("fault-codes", codes);
  }
  if (f.memory_health) w.line("memory-health", {num(*f.memory_health)});
  if (const auto& r = f.ras) {
    static_assert(health::kRasCategories == 7, "one field per category below");
    auto ras = [&](std::string_view type, const health::RasCounts& c) {
      w.line("ras",
             {type, num(c[0]), num(c[1]), num(c[2]), num(c[3]), num(c[4]), num(c[5]), num(c[6])});
    };
    ras("correctable", r->correctable);
    ras("uncorrectable", r->uncorrectable);
  }
  if (f.processes) {
    w.line("processes");
    for (const auto& p : *f.processes)
      w.line("process", {std::to_string(p.pid), p.used_bytes ? num(*p.used_bytes) : "-",
                         p.busy_percent ? num(*p.busy_percent) : "-"});
  }
  for (const auto& e : f.errors) w.line("error", {e});
  return w.line("device-end").take();
}

HealthReply decode_health_reply(std::string_view text) {
  HealthReply reply;
  auto parsed = parse_records(text);
  if (auto e = header_error(parsed)) {
    reply.error = *e;
    return reply;
  }
  auto& error = reply.error;
  bool library = false;
  std::string api;  // the library's API, as the worker named it ("nvml", "ixml")
  std::optional<std::pair<std::string, health::DeviceLibraryFacts>> open;
  auto fields = [&](const Record& r, size_t n) {
    if (r.fields.size() == n) return true;
    error = at(r, cat({"'", r.tag, "' takes ", std::to_string(n), " field(s)"}));
    return false;
  };
  auto number = [&](const Record& r, size_t i) -> std::optional<uint64_t> {
    auto v = parse_uint(r.fields[i]);
    if (!v) error = at(r, cat({"'", r.tag, "': not a number: ", r.fields[i]}));
    return v;
  };
  auto flag = [&](const Record& r, size_t i) -> std::optional<bool> {
    if (r.fields[i] == "0" || r.fields[i] == "1") return r.fields[i] == "1";
    error = at(r, cat({"'", r.tag, "': expected 0 or 1"}));
    return std::nullopt;
  };
  auto u32 = [](uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX)); };
  for (size_t i = 1; i < parsed.records.size() && !error; ++i) {
    const auto& r = parsed.records[i];
    health::DeviceLibraryFacts* f = open ? &open->second : nullptr;
    bool in_device = f != nullptr;
    if (reply.complete) {
      error = at(r, "data after 'end'");
    } else if (r.tag == "end") {
      if (open) error = at(r, "'end' inside a device");
      reply.complete = true;
    } else if (r.tag == "library") {
      if (library || r.fields.size() < 3) {
        error = at(r, "a second or short 'library'");
      } else if (r.fields[2] == "error" && r.fields.size() == 4) {
        reply.library_error = r.fields[3];
        library = true;
        api = r.fields[1];
        reply.api = api;
      } else if (r.fields[2] == "loaded" && r.fields.size() == 3) {
        library = true;
        api = r.fields[1];
        reply.api = api;
      } else {
        error = at(r, "'library': expected loaded, or error MESSAGE");
      }
    } else if (r.tag == "device") {
      if (!library || reply.library_error || open) {
        error = at(r, "'device' outside a loaded library or inside another device");
      } else if (fields(r, 1)) {
        auto address = PciAddress::parse(r.fields[0]);
        if (!address)
          error = at(r, "'device': not a PCI bus id");
        else {
          health::DeviceLibraryFacts facts;
          facts.api = api;
          open.emplace(address->str(), std::move(facts));
        }
      }
    } else if (!in_device) {
      error = at(r, cat({"'", r.tag, "' outside a device"}));
    } else if (r.tag == "device-end") {
      if (fields(r, 0)) {
        reply.devices.push_back(std::move(*open));
        open.reset();
      }
    } else if (r.tag == "ecc") {
      if (!fields(r, 3)) break;
      bool vol = r.fields[0] == "volatile";
      if (!vol && r.fields[0] != "aggregate") {
        error = at(r, "'ecc': expected volatile or aggregate");
        break;
      }
      auto c = number(r, 1), u = c ? number(r, 2) : std::nullopt;
      auto& into = vol ? f->ecc_volatile : f->ecc_aggregate;
      if (c && u) into = health::EccCounts{*c, *u};
    } else if (r.tag == "remap") {
      if (!fields(r, 4)) break;
      auto c = number(r, 0), u = c ? number(r, 1) : std::nullopt;
      auto p = u ? flag(r, 2) : std::nullopt, x = p ? flag(r, 3) : std::nullopt;
      if (x) f->remapped_rows = health::RemappedRows{u32(*c), u32(*u), *p, *x};
    } else if (r.tag == "retired") {
      if (!fields(r, 3)) break;
      auto s = number(r, 0), d = s ? number(r, 1) : std::nullopt;
      if (!d) break;
      health::RetiredPages p{u32(*s), u32(*d), std::nullopt};
      if (r.fields[2] != "-") {
        auto pending = flag(r, 2);
        if (!pending) break;
        p.pending = *pending;
      }
      f->retired_pages = p;
    } else if (r.tag == "clocks-event") {
      if (!fields(r, 1)) break;
      if (auto v = number(r, 0)) f->clocks_event_reasons = *v;
    } else if (r.tag == "alarm") {
      if (!fields(r, 1)) break;
      if (auto v = number(r, 0)) {
        if (*v > 3) {
          error = at(r, "'alarm': expected 0 to 3");
          break;
        }
        f->alarm = static_cast<uint32_t>(*v);
      }
    } else if (r.tag == "fault-codes") {
      std::vector<uint32_t> codes;
      for (const auto& word : r.fields) {
        bool digits = word.size() == 8 &&
                      word.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
        auto v = digits ? parse_hex(word) : std::nullopt;
        if (!v || codes.size() == health::kMaxFaultCodes) {
          error = at(r, "'fault-codes': expected at most 128 codes of eight hex digits");
          break;
        }
        codes.push_back(static_cast<uint32_t>(*v));
      }
      if (error) break;
      f->fault_codes = std::move(codes);
    } else if (r.tag == "memory-health") {
      if (!fields(r, 1)) break;
      if (auto v = number(r, 0)) {
        if (*v < 1 || *v > 4) {
          error = at(r, "'memory-health': expected 1 to 4");
          break;
        }
        f->memory_health = static_cast<uint32_t>(*v);
      }
    } else if (r.tag == "ras") {
      if (!fields(r, 1 + health::kRasCategories)) break;
      bool correctable = r.fields[0] == "correctable";
      if (!correctable && r.fields[0] != "uncorrectable") {
        error = at(r, "'ras': expected correctable or uncorrectable");
        break;
      }
      health::RasCounts counts{};
      for (size_t c = 0; c < counts.size() && !error; ++c)
        if (auto v = number(r, 1 + c)) counts[c] = *v;
      if (error) break;
      if (!f->ras) f->ras.emplace();
      (correctable ? f->ras->correctable : f->ras->uncorrectable) = counts;
    } else if (r.tag == "processes") {
      if (fields(r, 0)) f->processes.emplace();
    } else if (r.tag == "process") {
      if (!fields(r, 3)) break;
      if (!f->processes) {
        error = at(r, "'process' before 'processes'");
        break;
      }
      auto pid = number(r, 0);
      if (!pid) break;
      if (*pid == 0 || *pid > 0x3fffffff) {
        error = at(r, "'process': pid out of range");
        break;
      }
      health::LibraryProcess p{static_cast<int>(*pid), std::nullopt, std::nullopt};
      if (r.fields[1] != "-") {
        auto bytes = number(r, 1);
        if (!bytes) break;
        p.used_bytes = *bytes;
      }
      if (r.fields[2] != "-") {
        auto busy = number(r, 2);
        if (!busy) break;
        if (*busy > 100) {
          error = at(r, "'process': busy percent above 100");
          break;
        }
        p.busy_percent = static_cast<uint32_t>(*busy);
      }
      f->processes->push_back(p);
    } else if (r.tag == "error") {
      if (fields(r, 1)) f->errors.push_back(r.fields[0]);
    } else {
      error = at(r, cat({"unknown tag '", r.tag, "'"}));
    }
  }
  if (!error && parsed.error) error = parsed.error;
  return reply;
}

}  // namespace anygpu::worker
