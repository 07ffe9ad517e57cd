#include "migrator/sql_util.h"

#include <cstdlib>

namespace pglayout::migrator {

std::string Cell(const SqlRow& row, size_t i) {
  if (i >= row.size() || !row[i]) return "";
  return *row[i];
}

bool CellBool(const SqlRow& row, size_t i) {
  std::string v = Cell(row, i);
  return v == "t" || v == "true" || v == "on";
}

int64_t CellInt(const SqlRow& row, size_t i) {
  std::string v = Cell(row, i);
  return v.empty() ? 0 : std::strtoll(v.c_str(), nullptr, 10);
}

double CellDouble(const SqlRow& row, size_t i) {
  std::string v = Cell(row, i);
  return v.empty() ? 0 : std::strtod(v.c_str(), nullptr);
}

char CellChar(const SqlRow& row, size_t i) {
  std::string v = Cell(row, i);
  return v.empty() ? 0 : v[0];
}

std::string TextArrayLiteral(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::vector<SqlValue> ParseArrayLiteral(const std::string& text) {
  std::vector<SqlValue> out;
  if (text.size() < 2 || text.front() != '{') return out;
  size_t i = 1;
  while (i < text.size() && text[i] != '}') {
    std::string item;
    bool quoted = false;
    if (text[i] == '"') {
      quoted = true;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        item += text[i];
      }
      ++i;  // closing quote
    } else {
      for (; i < text.size() && text[i] != ',' && text[i] != '}'; ++i) {
        item += text[i];
      }
    }
    if (!quoted && item == "NULL") {
      out.emplace_back(std::nullopt);
    } else {
      out.emplace_back(item);
    }
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

std::string Join(const std::vector<std::string>& items,
                 const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

std::string JoinComma(const std::vector<std::string>& items) {
  return Join(items, ", ");
}

std::string QuoteIdentList(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  quoted.reserve(names.size());
  for (const std::string& n : names) quoted.push_back(QuoteIdent(n));
  return JoinComma(quoted);
}

}  // namespace pglayout::migrator
