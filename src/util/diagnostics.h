// One channel for what anygpu went on without: a value left out because its file was malformed,
// a vendor library that failed, a CDI spec not used. Whatever finds one adds it to the
// Diagnostics it was handed by reference; the entry point reports each once: the CLI on stderr
// as "anygpu: warning: WHERE: MESSAGE", every JSON document in its top-level "warnings" as
// "WHERE: MESSAGE". Fatal errors are not diagnostics: they travel as Result errors.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace anygpu {

struct Diagnostic {
  // note: why anygpu chose what it chose, shown with -v; warning: something was left out or
  // could not be used, shown unless -q and carried in JSON.
  enum class Severity { note, warning };

  Severity severity = Severity::warning;
  std::string where;  // the file, library or device it is about; empty when the message names it
  std::string message;

  static Diagnostic warning(std::string where, std::string message) {
    return {Severity::warning, std::move(where), std::move(message)};
  }
  static Diagnostic note(std::string message) { return {Severity::note, {}, std::move(message)}; }

  std::string text() const;  // "WHERE: MESSAGE", or MESSAGE alone
};

class Diagnostics {
 public:
  void warn(std::string where, std::string message) {
    add(Diagnostic::warning(std::move(where), std::move(message)));
  }
  void warn(std::string message) { warn({}, std::move(message)); }
  void note(std::string message) { add(Diagnostic::note(std::move(message))); }
  // A diagnostic whose severity and text are already held is not added again (two probes of one
  // host report a broken file once). True when it was added.
  bool add(Diagnostic d);
  void add(const Diagnostics& other);

  std::span<const Diagnostic> all() const { return items_; }
  // The warnings' texts in the order they were found: a JSON document's "warnings".
  std::vector<std::string> warnings() const;

 private:
  std::vector<Diagnostic> items_;
};

// Where a long-running command hands what its one discovery found (the CLI's channel), so the
// exporter and top report discovery's warnings as every other command does.
using DiagnosticsSink = std::function<void(const Diagnostics&)>;

}  // namespace anygpu
