#include "report/markup.h"

#include <cstdint>

namespace pglayout::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i], or 0 if the bytes
// there are not one (overlong forms, surrogates and values past U+10FFFF
// included, since XML parsers reject them).
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  uint8_t lead = byte(i);
  size_t length = 0;
  uint32_t code = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) {
    return 0;
  }
  if (length == 4 && (code < 0x10000 || code > 0x10FFFF)) return 0;
  // U+FFFE and U+FFFF are not XML characters either.
  if (code == 0xFFFE || code == 0xFFFF) return 0;
  return length;
}

// Appends one ASCII character, escaped; control characters XML forbids
// become U+FFFD.
void AppendAscii(char c, std::string* out) {
  switch (c) {
    case '&':
      *out += "&amp;";
      return;
    case '<':
      *out += "&lt;";
      return;
    case '>':
      *out += "&gt;";
      return;
    case '"':
      *out += "&quot;";
      return;
    case '\'':
      *out += "&#39;";
      return;
    case '\t':
    case '\n':
      *out += c;
      return;
    default:
      break;
  }
  if (static_cast<uint8_t>(c) < 0x20 || c == 0x7F) {
    *out += kReplacement;
  } else {
    *out += c;
  }
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
    } else if (length == 1) {
      AppendAscii(text[i], &out);
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

void Markup::WriteStart(std::string_view tag, const Attr* begin,
                        const Attr* end) {
  out_ += '<';
  out_ += tag;
  for (const Attr* a = begin; a != end; ++a) {
    out_ += ' ';
    out_ += a->first;
    out_ += "=\"";
    out_ += Escape(a->second);
    out_ += '"';
  }
}

void Markup::Open(std::string_view tag, Attrs attrs) {
  WriteStart(tag, attrs.begin(), attrs.end());
  out_ += '>';
  open_.emplace_back(tag);
}

void Markup::Open(std::string_view tag, const std::vector<Attr>& attrs) {
  WriteStart(tag, attrs.data(), attrs.data() + attrs.size());
  out_ += '>';
  open_.emplace_back(tag);
}

void Markup::Close() {
  if (open_.empty()) return;
  out_ += "</";
  out_ += open_.back();
  out_ += '>';
  open_.pop_back();
}

void Markup::Empty(std::string_view tag, Attrs attrs) {
  WriteStart(tag, attrs.begin(), attrs.end());
  out_ += "/>";
}

void Markup::Empty(std::string_view tag, const std::vector<Attr>& attrs) {
  WriteStart(tag, attrs.data(), attrs.data() + attrs.size());
  out_ += "/>";
}

void Markup::Text(std::string_view text) { out_ += Escape(text); }

void Markup::Element(std::string_view tag, Attrs attrs, std::string_view text) {
  Open(tag, attrs);
  Text(text);
  Close();
}

void Markup::Trusted(std::string_view markup) { out_ += markup; }

void Markup::Append(Markup&& other) { out_ += other.Finish(); }

std::string Markup::Finish() {
  while (!open_.empty()) Close();
  return std::move(out_);
}

}  // namespace pglayout::report
