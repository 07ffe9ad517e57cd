#include "pg/server_message.h"

#include <array>
#include <cctype>
#include <vector>

#include "common/text.h"
#include "pg/conninfo_mask.h"

namespace pglayout {
namespace {

// The labels libpq starts a line with: the severities, the fields of an
// error report (fe-protocol3.c), and its own connection messages.
constexpr std::array<std::string_view, 14> kLabels = {
    "ERROR:  ",
    "FATAL:  ",
    "PANIC:  ",
    "WARNING:  ",
    "NOTICE:  ",
    "DETAIL:  ",
    "HINT:  ",
    "QUERY:  ",
    "CONTEXT:  ",
    "LOCATION:  ",
    "STATEMENT:  ",
    "SCHEMA NAME:  ",
    "connection to server ",
    "server closed the connection"};

// "LINE 12: ..." (the query line an error position points into).
bool StartsWithLineLabel(std::string_view line) {
  if (!line.starts_with("LINE ")) return false;
  size_t i = 5;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) {
    ++i;
  }
  return i > 5 && i < line.size() && line[i] == ':';
}

// True if a line break before |rest| is one of libpq's own: the next line
// is a field, a libpq message, or its tab-indented advice ("\tIs the
// server running ...?").
bool StartsField(std::string_view rest) {
  if (rest.starts_with('\t')) return true;
  if (StartsWithLineLabel(rest)) return true;
  for (std::string_view label : kLabels) {
    if (rest.starts_with(label)) return true;
  }
  return false;
}

// Spaces and one caret: the marker under a "LINE n:" line.
bool IsCaretLine(std::string_view line) {
  size_t caret = line.find_first_not_of(' ');
  return caret != std::string_view::npos && line[caret] == '^' &&
         caret + 1 == line.size();
}

std::string_view TrimEnd(std::string_view text) {
  while (!text.empty() &&
         (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// |text| cut at libpq's own line breaks; a break inside a field stays in
// it.
std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t nl = text.find('\n'); nl != std::string_view::npos;
       nl = text.find('\n', nl + 1)) {
    std::string_view rest = text.substr(nl + 1);
    size_t next = rest.find('\n');
    std::string_view next_line = rest.substr(0, next);
    if (StartsField(rest) || IsCaretLine(next_line)) {
      fields.push_back(text.substr(start, nl - start));
      start = nl + 1;
    }
  }
  fields.push_back(text.substr(start));
  return fields;
}

}  // namespace

std::string OneLineServerMessage(std::string_view text) {
  std::string out;
  for (std::string_view field : Fields(TrimEnd(text))) {
    if (IsCaretLine(field)) continue;
    while (field.starts_with('\t')) field.remove_prefix(1);
    field = TrimEnd(field);
    if (field.empty()) continue;
    if (!out.empty()) out += "; ";
    out += DisplayName(field);
  }
  return out;
}

std::string TrimmedLibpqMessage(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

std::string PassedOnMessage(const std::string& text,
                            const std::string& conninfo) {
  return OneLineServerMessage(
      RedactPasswords(TrimmedLibpqMessage(text), conninfo));
}

}  // namespace pglayout
