#include "planner/file_text.h"

#include <fmt/format.h>

namespace pglayout::planner {
namespace {

bool Control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

}  // namespace

std::string Visible(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (Control(c)) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

std::string SqlNote(std::string_view text) {
  std::string body = Visible(text);
  std::string out = "/* ";
  for (size_t i = 0; i < body.size(); ++i) {
    out += body[i];
    const bool pair =
        i + 1 < body.size() && ((body[i] == '*' && body[i + 1] == '/') ||
                                (body[i] == '/' && body[i + 1] == '*'));
    if (pair) out += '\\';
  }
  return out + " */";
}

bool HasControl(std::string_view text) {
  for (char c : text) {
    if (Control(c)) return true;
  }
  return false;
}

}  // namespace pglayout::planner
