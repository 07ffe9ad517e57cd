#include "common/status.h"

#include <cstring>
#include <string>

namespace pglayout {

Status Status::FromErrno(std::string_view context, int errnum) {
  std::string msg(context);
  msg += ": ";
  msg += std::strerror(errnum);
  return Status(Code::kIoError, std::move(msg));
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  std::string msg(prefix);
  msg += ": ";
  msg += message_;
  Status out(code_, std::move(msg));
  out.hint_ = hint_;
  return out;
}

Status Status::WithHint(std::string hint) const {
  if (ok()) return *this;
  Status out = *this;
  out.hint_ = std::move(hint);
  return out;
}

std::string Status::ToString() const { return ok() ? "OK" : message_; }

}  // namespace pglayout
