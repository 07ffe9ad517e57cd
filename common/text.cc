#include "common/text.h"

#include <fmt/format.h>

namespace pglayout {
namespace {

// The length of the well-formed UTF-8 sequence at |text|[i], and its code
// point; 0 if the byte there does not start one.
size_t SequenceAt(std::string_view text, size_t i, char32_t* code_point) {
  const auto byte = [&](size_t k) {
    return static_cast<unsigned char>(text[i + k]);
  };
  const unsigned char b0 = byte(0);
  if (b0 < 0x80) {
    *code_point = b0;
    return 1;
  }
  size_t length = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return length;
}

bool IsControl(char32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
         cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string Escape(std::string_view text, bool keep_lines, size_t max_bytes) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (max_bytes > 0 && i >= max_bytes) {
      out += "...";
      break;
    }
    char32_t cp = 0;
    size_t n = SequenceAt(text, i, &cp);
    if (n == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[i]));
      i += 1;
      continue;
    }
    if (IsControl(cp) && !(keep_lines && (cp == '\n' || cp == '\t'))) {
      out += fmt::format("\\u{:04X}", static_cast<uint32_t>(cp));
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    size_t n = SequenceAt(text, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string EscapeInvalidUtf8(std::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    size_t n = SequenceAt(text, i, &cp);
    if (n == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[i]));
      i += 1;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string Latin1ToUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xC0 | (b >> 6));
      out += static_cast<char>(0x80 | (b & 0x3F));
    }
  }
  return out;
}

std::string DisplayName(std::string_view name, size_t max_bytes) {
  return Escape(name, false, max_bytes);
}

std::string TerminalText(std::string_view text) {
  return Escape(text, true, 0);
}

TerminalTextBuf::~TerminalTextBuf() { sync(); }

void TerminalTextBuf::FlushLines() {
  size_t end = pending_.rfind('\n');
  if (end == std::string::npos) return;
  std::string safe =
      TerminalText(std::string_view(pending_).substr(0, end + 1));
  target_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
  pending_.erase(0, end + 1);
}

TerminalTextBuf::int_type TerminalTextBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return 0;
  pending_ += traits_type::to_char_type(c);
  if (c == '\n') FlushLines();
  return c;
}

std::streamsize TerminalTextBuf::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<size_t>(n));
  FlushLines();
  return n;
}

int TerminalTextBuf::sync() {
  FlushLines();
  if (!pending_.empty()) {
    std::string safe = TerminalText(pending_);
    target_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
    pending_.clear();
  }
  return target_->pubsync();
}

}  // namespace pglayout
