#include "image/facts_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "util/env_vars.h"
#include "util/strings.h"
#include "util/version.h"

namespace anygpu::image {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kSchema = "anygpu.image-facts/v1";
// What the reader keeps (member_interest, the code-object scanner, the compat note) is part of
// what an entry means: bump this when it changes, and older entries are read afresh.
constexpr std::string_view kReaderFormat = "1";
constexpr size_t kMaxString = 4096;  // a path, an env entry, a layer digest, a target id
constexpr size_t kMaxItems = 1 << 16;

std::string reader_version() {
  return cat({ANYGPU_VERSION, "/", kReaderFormat});
}

// The part of a kept text the judge reads: a METADATA's header block (parse_metadata stops at
// the first empty line); a conda record's name is its file name, its text is not read.
std::string kept_text(const std::string& path, const std::string& text) {
  auto base = std::string_view(path).substr(path.rfind('/') + 1);
  if (base == "METADATA") {
    auto end = text.find("\n\n");
    auto crlf = text.find("\r\n\r\n");
    end = std::min(end, crlf);
    return end == std::string::npos ? text : text.substr(0, end + 1);
  }
  if (base.size() > 5 && base.substr(base.size() - 5) == ".json") return "";
  return text;
}

// Strict reading: every field present with its type, within its bounds.
class Reader {
 public:
  std::optional<std::string> problem;

  const Json* field(const Json& obj, const char* key, Json::value_t type) {
    if (problem) return nullptr;
    if (!obj.is_object()) return fail("an object expected");
    auto it = obj.find(key);
    if (it == obj.end()) return fail(cat({"'", key, "' missing"}));
    bool ok = it->type() == type || (type == Json::value_t::number_unsigned &&
                                     it->is_number_integer() && it->get<int64_t>() >= 0);
    if (!ok) return fail(cat({"'", key, "' has the wrong type"}));
    return &*it;
  }
  std::string string(const Json& obj, const char* key, size_t max = kMaxString) {
    const auto* j = field(obj, key, Json::value_t::string);
    if (!j) return "";
    auto s = j->get<std::string>();
    if (s.size() > max) fail(cat({"'", key, "' too long"}));
    return s;
  }
  uint64_t number(const Json& obj, const char* key, uint64_t max) {
    const auto* j = field(obj, key, Json::value_t::number_unsigned);
    if (!j) return 0;
    auto n = j->get<uint64_t>();
    if (n > max) fail(cat({"'", key, "' out of range"}));
    return n;
  }
  std::vector<std::string> strings(const Json& obj, const char* key) {
    std::vector<std::string> out;
    const auto* j = field(obj, key, Json::value_t::array);
    if (!j) return out;
    if (j->size() > kMaxItems) fail(cat({"'", key, "' has too many items"}));
    for (const auto& e : *j) {
      if (!e.is_string() || e.get_ref<const std::string&>().size() > kMaxString) {
        fail(cat({"'", key, "' holds something other than a short string"}));
        break;
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  std::vector<int> ints(const Json& obj, const char* key) {
    std::vector<int> out;
    const auto* j = field(obj, key, Json::value_t::array);
    if (!j) return out;
    if (j->size() > kMaxItems) fail(cat({"'", key, "' has too many items"}));
    for (const auto& e : *j) {
      if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > 100000) {
        fail(cat({"'", key, "' holds something other than a small number"}));
        break;
      }
      out.push_back(static_cast<int>(e.get<int64_t>()));
    }
    return out;
  }
  std::nullptr_t fail(std::string why) {
    if (!problem) problem = std::move(why);
    return nullptr;
  }
};

bool safe_member_path(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.size() > kMaxString) return false;
  for (auto part : split(p, '/'))
    if (part.empty() || part == "." || part == "..") return false;
  return true;
}

Json objects_json(const CodeObjects& o) {
  return {{"sass", o.sass},
          {"ptx", o.ptx},
          {"specific", o.specific},
          {"gfx", o.gfx},
          {"unread_bundles", o.unread_bundles}};
}

CodeObjects objects_from(Reader& r, const Json& j) {
  CodeObjects o;
  o.sass = r.ints(j, "sass");
  o.ptx = r.ints(j, "ptx");
  o.specific = r.strings(j, "specific");
  o.gfx = r.strings(j, "gfx");
  o.unread_bundles = static_cast<int>(r.number(j, "unread_bundles", 1 << 20));
  return o;
}

Json compat_json(const CudaCompat& c) {
  Json j = {{"driver_version", c.driver_version}};
  if (c.note)
    j["note"] = {{"format", c.note->format},
                 {"cuda_version", c.note->cuda_version},
                 {"drivers", c.note->drivers},
                 {"devices", c.note->devices}};
  if (c.unread) j["unread"] = *c.unread;
  return j;
}

CudaCompat compat_from(Reader& r, const Json& j) {
  CudaCompat c;
  c.driver_version = r.string(j, "driver_version");
  if (j.is_object() && j.contains("note")) {
    const auto& n = j["note"];
    CompatNote note;
    note.format = static_cast<int>(r.number(n, "format", 1 << 20));
    note.cuda_version = r.string(n, "cuda_version");
    // As the note reader accepts it (compat_note.h): a dotted version.
    if (!r.problem && !is_dotted_version(note.cuda_version))
      r.fail("a compat note's 'cuda_version' that is no version");
    note.drivers = r.ints(n, "drivers");
    note.devices = r.ints(n, "devices");
    c.note = std::move(note);
  }
  if (j.is_object() && j.contains("unread")) c.unread = r.string(j, "unread");
  return c;
}

std::string now_seconds() {
  return std::to_string(static_cast<long long>(std::time(nullptr)));
}

}  // namespace

std::string read_note(const ImageContents& image, const FactsCache* cache) {
  if (image.from_cache)
    return cat({"image ", image.id, ": facts from the cache ", cache ? cache->path() : "",
                ", no layer read"});
  return cat({"image ", image.id, ": ", std::to_string(image.layers_read), " of ",
              std::to_string(image.layers.size()), " layer(s) read",
              cache ? cat({", facts kept in ", cache->path()}) : std::string(", no cache")});
}

std::string cache_entry_name(const std::string& id) {
  constexpr std::string_view kPrefix = "sha256:";
  if (id.size() != kPrefix.size() + 64 || id.compare(0, kPrefix.size(), kPrefix) != 0 ||
      !is_lower_hex(std::string_view(id).substr(kPrefix.size())))
    return "";
  return cat({"sha256-", id.substr(kPrefix.size()), ".json"});
}

std::string facts_to_json(const ImageContents& image) {
  Json files = Json::array();
  for (const auto& [path, f] : image.files) {
    Json j = {{"path", path}, {"layer", f.layer}, {"library", f.library}};
    if (!f.library && !f.compat) j["text"] = kept_text(path, f.text);
    if (f.library) j["objects"] = objects_json(f.objects);
    if (f.compat) j["compat"] = compat_json(*f.compat);
    files.push_back(std::move(j));
  }
  Json doc = {{"schema", kSchema},      {"reader", reader_version()},
              {"id", image.id},         {"architecture", image.architecture},
              {"os", image.os},         {"env", image.env},
              {"layers", image.layers}, {"files", std::move(files)}};
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<ImageContents> facts_from_json(std::string_view text, const std::string& id) {
  auto doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded()) return bad_input("not JSON");
  Reader r;
  ImageContents out;
  if (r.string(doc, "schema") != kSchema && !r.problem) r.fail("another schema");
  if (auto got = r.string(doc, "id"); got != id && !r.problem)
    r.fail(cat({"it is the entry of ", got}));
  out.id = id;
  out.architecture = r.string(doc, "architecture");
  out.os = r.string(doc, "os");
  out.env = r.strings(doc, "env");
  out.layers = r.strings(doc, "layers");
  const auto* files = r.field(doc, "files", Json::value_t::array);
  size_t total = 0;
  if (files && files->size() > kMaxItems) r.fail("too many files");
  for (size_t i = 0; files && !r.problem && i < files->size(); ++i) {
    const auto& j = (*files)[i];
    auto path = r.string(j, "path");
    ImageFile f;
    f.layer = static_cast<size_t>(r.number(j, "layer", kMaxItems));
    const auto* lib = r.field(j, "library", Json::value_t::boolean);
    if (r.problem) break;
    if (!safe_member_path(path)) r.fail(cat({"a file path '", path, "' that is no member path"}));
    if (f.layer >= out.layers.size()) r.fail(cat({path, ": layer out of range"}));
    f.library = lib->get<bool>();
    if (j.contains("text")) f.text = r.string(j, "text", kMaxKeptText);
    total += f.text.size();
    if (total > kMaxKeptTotal) r.fail("more kept text than a read keeps");
    if (f.library) f.objects = objects_from(r, j.contains("objects") ? j["objects"] : Json());
    if (j.contains("compat")) f.compat = compat_from(r, j["compat"]);
    if (r.problem) break;
    if (!out.files.emplace(path, std::move(f)).second) r.fail(cat({path, " twice"}));
  }
  if (r.problem) return bad_input(*r.problem);
  return out;
}

Result<std::optional<FactsCache>> FactsCache::open(std::string* why) {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  // An existing directory, and beneath it the entries' directory (made on the first store: a
  // run that keeps nothing creates nothing).
  std::string base, entries;
  auto named = read_env("ANYGPU_CACHE_DIR");  // must be an existing directory
  if (!named) return named.error();
  if (*named) {
    base = (*named)->text, entries = "images";
  } else if (::geteuid() == 0) {
    base = "/var/cache", entries = "anygpu/images";
  } else if (auto xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') {
    base = xdg, entries = "anygpu/images";
  } else if (auto home = env("HOME"); !home.empty() && home.front() == '/') {
    base = home, entries = ".cache/anygpu/images";
  } else {
    *why =
        "no cache directory: neither ANYGPU_CACHE_DIR, XDG_CACHE_HOME nor HOME is an absolute "
        "path";
    return std::optional<FactsCache>();
  }
  // The directory as named (links in the user's own path are the user's); nothing beneath it
  // is reached through a link.
  auto d = ConfinedDir::open(base, Confinement::no_symlinks);
  if (!d) {
    *why = d.error().message;
    return std::optional<FactsCache>();
  }
  return std::optional<FactsCache>(FactsCache(std::move(*d), entries));
}

Result<FactsCache> FactsCache::at(const std::string& dir) {
  auto d = ConfinedDir::open(dir, Confinement::no_symlinks);
  if (!d) return d.error();
  return FactsCache(std::move(*d), "images");
}

std::string FactsCache::path() const {
  return dir_.show(entries_);
}

std::optional<ImageContents> FactsCache::load(const std::string& id,
                                              std::vector<std::string>& warnings) const {
  auto name = cache_entry_name(id);
  if (name.empty()) return std::nullopt;
  auto rel = cat({entries_, "/", name});
  if (!dir_.exists(rel)) return std::nullopt;
  auto text = dir_.read_file(rel, kMaxCacheEntryBytes);
  std::optional<std::string> problem;
  if (!text) {
    problem = text.error().message;
  } else {
    // Another reader's entry is stale, not damaged: read afresh and replaced.
    auto doc = Json::parse(*text, nullptr, false);
    if (doc.is_object() && doc.contains("reader") && doc["reader"].is_string() &&
        doc["reader"].get<std::string>() != reader_version() && doc.value("schema", "") == kSchema)
      return std::nullopt;
    auto facts = facts_from_json(*text, id);
    if (facts) return std::move(*facts);
    problem = facts.error().message;
  }
  auto aside = cat({name, ".corrupt-", now_seconds()});
  auto moved = dir_.rename_file(rel, aside);
  warnings.push_back(
      cat({"image cache entry ", dir_.show(rel), " is corrupt (", *problem, "); not trusted, ",
           moved && *moved ? "set aside as " + dir_.show(cat({entries_, "/", aside}))
                           : std::string("left where it is"),
           ", the image's layers are read"}));
  return std::nullopt;
}

void FactsCache::store(const ImageContents& image, std::vector<std::string>& warnings) const {
  auto name = cache_entry_name(image.id);
  if (name.empty()) return;
  auto text = facts_to_json(image);
  if (text.size() > kMaxCacheEntryBytes) return;  // an image this large is read each time
  auto rel = cat({entries_, "/", name});
  auto w = dir_.write_file(rel, text, {.mode = 0600});
  if (!w) {
    warnings.push_back(cat({"image cache: not kept: ", w.error().message}));
    return;
  }
  evict(warnings);
}

void FactsCache::evict(std::vector<std::string>& warnings) const {
  auto entries = dir_.list(entries_);
  if (!entries) return;
  // Only what this cache writes: entries and the corrupt ones set aside.
  std::vector<ConfinedDir::Entry> ours;
  for (auto& e : *entries)
    if (e.regular && e.name.rfind("sha256-", 0) == 0 && (e.name.find(".json") != std::string::npos))
      ours.push_back(std::move(e));
  if (ours.size() <= kMaxCacheEntries) return;
  std::sort(ours.begin(), ours.end(),
            [](const auto& a, const auto& b) { return a.mtime_ns < b.mtime_ns; });
  for (size_t i = 0; i + kMaxCacheEntries < ours.size(); ++i) {
    auto removed = dir_.remove_file(cat({entries_, "/", ours[i].name}));
    if (!removed) {
      warnings.push_back(cat({"image cache: ", removed.error().message}));
      return;
    }
  }
}

}  // namespace anygpu::image
