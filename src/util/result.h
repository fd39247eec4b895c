// Errors are values inside the library; the CLI maps them to exit codes in one place.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace anygpu {

enum class ErrorKind {
  bad_input,  // malformed file, option or environment: exit 2
  host,       // the host lacks something required: exit 3
  internal,   // anything else: exit 1 (125 for `run`)
};

struct Error {
  ErrorKind kind = ErrorKind::bad_input;
  std::string message;
  int sys_errno = 0;  // set when a system call failed (ENOENT: simply absent)
};

inline Error bad_input(std::string message) {
  return {ErrorKind::bad_input, std::move(message)};
}
inline Error host_error(std::string message) {
  return {ErrorKind::host, std::move(message)};
}
inline Error internal_error(std::string message) {
  return {ErrorKind::internal, std::move(message)};
}

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }
  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace anygpu
