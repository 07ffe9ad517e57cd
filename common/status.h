// Status: the result of every fallible pglayout library call.
//
// Library functions return a Status and deliver their results through
// out-parameters, in the style of leveldb. Exceptions from third-party
// libraries (libpqxx, toml++) and errno values are converted into a Status
// once, in the adapter that calls them, and never cross a library API.
//
// The code decides the process exit code in the CLI: kInvalidInput is a bad
// usage or a bad input file (exit 2); every other failure exits 1. A failure
// may carry a hint, the next step for the person reading it, set where the
// error is made and printed by the CLI as "pglayout: hint: ...".

#ifndef PGLAYOUT_COMMON_STATUS_H_
#define PGLAYOUT_COMMON_STATUS_H_

#include <string>
#include <string_view>
#include <utility>

namespace pglayout {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidInput,  // the user's input or files are wrong; nothing was changed
    kNotFound,      // a named object (file, relation, volume) does not exist
    kIoError,       // the operating system refused (errno is in the message)
    kSqlError,      // the server refused a statement
    kUnavailable,   // a resource is missing: server down, io_uring disabled
    kAborted,       // interrupted by a signal or a refused precondition
    kInternal,      // a bug in pglayout
  };

  Status() = default;  // OK

  static Status Ok() { return Status(); }
  static Status InvalidInput(std::string msg) {
    return Status(Code::kInvalidInput, std::move(msg));
  }
  static Status NotFound(std::string msg) {
    return Status(Code::kNotFound, std::move(msg));
  }
  static Status IoError(std::string msg) {
    return Status(Code::kIoError, std::move(msg));
  }
  // "context: strerror(errnum)", for the one place each errno is converted.
  static Status FromErrno(std::string_view context, int errnum);
  static Status SqlError(std::string msg) {
    return Status(Code::kSqlError, std::move(msg));
  }
  static Status Unavailable(std::string msg) {
    return Status(Code::kUnavailable, std::move(msg));
  }
  static Status Aborted(std::string msg) {
    return Status(Code::kAborted, std::move(msg));
  }
  static Status Internal(std::string msg) {
    return Status(Code::kInternal, std::move(msg));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  bool IsInvalidInput() const { return code_ == Code::kInvalidInput; }
  const std::string& message() const { return message_; }
  // "" when there is none. Written as PostgreSQL writes its HINT lines: a
  // whole sentence ("Run \"pglayout probe\" first.").
  const std::string& hint() const { return hint_; }

  // Returns a Status with the same code and hint and "prefix: message".
  Status WithContext(std::string_view prefix) const;
  // Returns this Status with |hint| as its hint; an OK Status stays OK and
  // has none.
  Status WithHint(std::string hint) const;

  // "OK", or "<message>" for failures (the code is not repeated: messages
  // are written for people).
  std::string ToString() const;

 private:
  Status(Code code, std::string message)
      : code_(code), message_(std::move(message)) {}

  Code code_ = Code::kOk;
  std::string message_;
  std::string hint_;
};

// Returns from the enclosing function when |expr| yields a failed Status.
#define PGLAYOUT_RETURN_IF_ERROR(expr)         \
  do {                                         \
    ::pglayout::Status _pgl_status = (expr);   \
    if (!_pgl_status.ok()) return _pgl_status; \
  } while (0)

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_STATUS_H_
