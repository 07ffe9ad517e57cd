#include "common/toml_writer.h"

#include <fmt/format.h>

#include <cmath>

#include "common/text.h"
#include "common/units.h"

namespace pglayout::internal {

std::string TomlQuote(std::string_view value) {
  // Text that is not UTF-8 cannot be a TOML string: its bad bytes are
  // written as the four characters \xNN (callers refuse such text first).
  const std::string text = EscapeInvalidUtf8(value);
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        // TOML forbids raw C0 controls and DEL in a basic string.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += fmt::format("\\u{:04X}", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string TomlKey(std::string_view key) {
  bool bare = !key.empty();
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-';
    bare = bare && ok;
  }
  return bare ? std::string(key) : TomlQuote(key);
}

std::string TomlNumber(double value) {
  if (!std::isfinite(value)) return "0";
  if (std::fabs(value) < 1e15 && value == std::trunc(value)) {
    return fmt::format("{}", static_cast<int64_t>(value));
  }
  return fmt::format("{}", value);
}

double RoundToSignificant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  double scale = std::pow(
      10.0,
      digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(value)))));
  return std::round(value * scale) / scale;
}

void TomlWriter::Comment(std::string_view text) {
  after_comment_ = true;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    out_ += line.empty() ? "#\n" : fmt::format("# {}\n", line);
    start = end + 1;
  }
}

void TomlWriter::Blank() {
  after_comment_ = false;
  out_ += '\n';
}

void TomlWriter::EnsureBlankLine() {
  // A comment written just before a header stays attached to it.
  if (out_.empty() || out_.ends_with("\n\n") || after_comment_) return;
  out_ += "\n";
}

void TomlWriter::Table(std::string_view header) {
  EnsureBlankLine();
  after_comment_ = false;
  out_ += fmt::format("[{}]\n", header);
}

void TomlWriter::ArrayTable(std::string_view header) {
  EnsureBlankLine();
  after_comment_ = false;
  out_ += fmt::format("[[{}]]\n", header);
}

void TomlWriter::Key(std::string_view key) {
  after_comment_ = false;
  out_ += TomlKey(key);
  out_ += " = ";
}

void TomlWriter::String(std::string_view key, std::string_view value) {
  Key(key);
  out_ += TomlQuote(value);
  out_ += '\n';
}

void TomlWriter::Number(std::string_view key, double value) {
  Key(key);
  out_ += TomlNumber(value);
  out_ += '\n';
}

void TomlWriter::Integer(std::string_view key, int64_t value) {
  Key(key);
  out_ += std::to_string(value);
  out_ += '\n';
}

void TomlWriter::Bool(std::string_view key, bool value) {
  Key(key);
  out_ += value ? "true\n" : "false\n";
}

void TomlWriter::Size(std::string_view key, uint64_t bytes) {
  String(key, FormatSize(bytes));
}

void TomlWriter::MeasuredSize(std::string_view key, uint64_t bytes) {
  String(key, FormatMeasuredSize(bytes));
}

void TomlWriter::Measured(std::string_view key, double value, int digits) {
  Number(key, RoundToSignificant(value, digits));
}

void TomlWriter::Duration(std::string_view key, double seconds) {
  String(key, FormatDuration(seconds));
}

namespace {

std::string ListText(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out += ", ";
    out += TomlQuote(list[i]);
  }
  return out + "]";
}

}  // namespace

void TomlWriter::StringList(std::string_view key,
                            const std::vector<std::string>& list) {
  Key(key);
  out_ += ListText(list);
  out_ += '\n';
}

void TomlWriter::StringListList(
    std::string_view key, const std::vector<std::vector<std::string>>& lists) {
  Key(key);
  out_ += '[';
  for (size_t i = 0; i < lists.size(); ++i) {
    if (i > 0) out_ += ", ";
    out_ += ListText(lists[i]);
  }
  out_ += "]\n";
}

void TomlWriter::StringMapEntries(
    const std::map<std::string, std::string>& map) {
  for (const auto& [name, value] : map) String(name, value);
}

void TomlWriter::StringIfSet(std::string_view key, std::string_view value) {
  if (!value.empty()) String(key, value);
}

void TomlWriter::NumberIfSet(std::string_view key, double value) {
  if (value != 0) Number(key, value);
}

void TomlWriter::MeasuredIfSet(std::string_view key, double value, int digits) {
  if (value != 0) Measured(key, value, digits);
}

void TomlWriter::SizeIfSet(std::string_view key, uint64_t bytes) {
  if (bytes != 0) Size(key, bytes);
}

void TomlWriter::StringListIfSet(std::string_view key,
                                 const std::vector<std::string>& list) {
  if (!list.empty()) StringList(key, list);
}

}  // namespace pglayout::internal
