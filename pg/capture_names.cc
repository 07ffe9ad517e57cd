#include "pg/capture_names.h"

#include <fmt/format.h>

#include <string>

namespace pglayout {
namespace {

// Whether |name| is |prefix| then a canonical decimal oid (no sign, no
// leading zero, at most 4294967295).
bool ParseOidAfter(const std::string& name, const std::string& prefix,
                   uint32_t* oid) {
  if (!name.starts_with(prefix)) return false;
  const std::string digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 10 ||
      (digits.size() > 1 && digits[0] == '0')) {
    return false;
  }
  uint64_t value = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return false;
    value = value * 10 + static_cast<uint64_t>(ch - '0');
  }
  if (value > UINT32_MAX) return false;
  if (oid) *oid = static_cast<uint32_t>(value);
  return true;
}

}  // namespace

std::string CaptureSlotName(uint32_t database_oid, uint32_t oid) {
  return fmt::format("pglayout_{}_{}", database_oid, oid);
}

std::string CapturePublicationName(uint32_t oid) {
  return fmt::format("pglayout_capture_{}", oid);
}

bool ParseCaptureSlotName(const std::string& name, uint32_t database_oid,
                          uint32_t* oid) {
  return ParseOidAfter(name, fmt::format("pglayout_{}_", database_oid), oid);
}

bool ParseCapturePublicationName(const std::string& name, uint32_t* oid) {
  return ParseOidAfter(name, "pglayout_capture_", oid);
}

}  // namespace pglayout
