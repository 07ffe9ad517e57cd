#include "common/quote.h"

#include "common/text.h"

namespace pglayout {

std::string QuoteIdent(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string DisplayIdent(const std::string& name) {
  auto plain = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '$'));
  };
  bool quote = name.empty();
  for (size_t i = 0; i < name.size() && !quote; ++i) {
    quote = !plain(name[i], i == 0);
  }
  // Quoting keeps a newline or an ESC: escaped too (common/text.h).
  return DisplayName(quote ? QuoteIdent(name) : name);
}

std::string DisplayIdentList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += DisplayIdent(n);
  }
  return out;
}

namespace {

// Reads one identifier starting at *pos; stops at an unquoted '.'.
Status ReadIdentPart(const std::string& text, size_t* pos, std::string* out) {
  out->clear();
  size_t i = *pos;
  if (i < text.size() && text[i] == '"') {
    for (++i; i < text.size(); ++i) {
      if (text[i] != '"') {
        *out += text[i];
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        *out += '"';
        ++i;
      } else {
        break;
      }
    }
    if (i >= text.size()) {
      return Status::InvalidInput("unclosed quote in name '" + text + "'");
    }
    ++i;  // the closing quote
  } else {
    for (; i < text.size() && text[i] != '.'; ++i) {
      char c = text[i];
      *out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  if (out->empty()) {
    return Status::InvalidInput("empty part in name '" + text + "'");
  }
  *pos = i;
  return Status::Ok();
}

}  // namespace

Status SplitQualifiedName(const std::string& text, std::string* schema,
                          std::string* name) {
  size_t pos = 0;
  std::string first;
  PGLAYOUT_RETURN_IF_ERROR(ReadIdentPart(text, &pos, &first));
  if (pos == text.size()) {
    schema->clear();
    *name = first;
    return Status::Ok();
  }
  if (text[pos] != '.') {
    return Status::InvalidInput("unexpected text after quoted part in name '" +
                                text + "'");
  }
  ++pos;
  std::string second;
  PGLAYOUT_RETURN_IF_ERROR(ReadIdentPart(text, &pos, &second));
  if (pos != text.size()) {
    return Status::InvalidInput("name '" + text +
                                "' has more than schema.relation");
  }
  *schema = first;
  *name = second;
  return Status::Ok();
}

std::string QuoteQualified(const std::string& qualified_name) {
  std::string schema, name;
  if (!SplitQualifiedName(qualified_name, &schema, &name).ok()) {
    return QuoteIdent(qualified_name);
  }
  if (schema.empty()) return QuoteIdent(name);
  return QuoteIdent(schema) + "." + QuoteIdent(name);
}

std::string QuoteLiteral(const std::string& value) {
  const bool escape = value.find('\\') != std::string::npos;
  std::string out = escape ? " E'" : "'";
  for (char c : value) {
    if (c == '\'' || (escape && c == '\\')) out += c;
    out += c;
  }
  out += '\'';
  return out;
}

}  // namespace pglayout
