#include "testing/sql_qualification.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

namespace pglayout {
namespace {

enum class Kind { kWord, kQuoted, kCast, kOther };

struct Token {
  Kind kind;
  std::string text;  // lower case for words
};

bool WordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool WordChar(char c) {
  return WordStart(c) || std::isdigit(static_cast<unsigned char>(c)) ||
         c == '$';
}

// Skips a '...' literal starting at sql[i] (the quote); backslash escapes
// when |escapes|.
size_t SkipLiteral(const std::string& sql, size_t i, bool escapes) {
  for (++i; i < sql.size(); ++i) {
    if (escapes && sql[i] == '\\') {
      ++i;
    } else if (sql[i] == '\'') {
      if (i + 1 < sql.size() && sql[i + 1] == '\'') {
        ++i;
      } else {
        return i + 1;
      }
    }
  }
  return i;
}

// $tag$...$tag$ from sql[i]; npos-free: returns the end, or i + 1 when
// sql[i] starts no dollar quote (a parameter $1).
size_t SkipDollarQuote(const std::string& sql, size_t i) {
  size_t j = i + 1;
  while (j < sql.size() && (WordChar(sql[j]) && sql[j] != '$')) ++j;
  if (j >= sql.size() || sql[j] != '$' ||
      (j > i + 1 && std::isdigit(static_cast<unsigned char>(sql[i + 1])))) {
    return i + 1;
  }
  std::string tag = sql.substr(i, j - i + 1);
  size_t end = sql.find(tag, j + 1);
  return end == std::string::npos ? sql.size() : end + tag.size();
}

std::vector<Token> Tokens(const std::string& sql) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < sql.size()) {
    char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      i = sql.find('\n', i);
      if (i == std::string::npos) i = sql.size();
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      size_t end = sql.find("*/", i + 2);
      i = end == std::string::npos ? sql.size() : end + 2;
    } else if (c == '\'') {
      i = SkipLiteral(sql, i, false);
      out.push_back({Kind::kOther, "'"});
    } else if ((c == 'E' || c == 'e') && i + 1 < sql.size() &&
               sql[i + 1] == '\'') {
      i = SkipLiteral(sql, i + 1, true);
      out.push_back({Kind::kOther, "'"});
    } else if (c == '$') {
      i = SkipDollarQuote(sql, i);
      out.push_back({Kind::kOther, "$"});
    } else if (c == '"') {
      size_t j = i + 1;
      std::string name;
      for (; j < sql.size(); ++j) {
        if (sql[j] == '"') {
          if (j + 1 < sql.size() && sql[j + 1] == '"') {
            name += '"';
            ++j;
          } else {
            break;
          }
        } else {
          name += sql[j];
        }
      }
      i = j + 1;
      out.push_back({Kind::kQuoted, "\"" + name + "\""});
    } else if (WordStart(c)) {
      size_t j = i;
      std::string word;
      while (j < sql.size() && WordChar(sql[j])) {
        word +=
            static_cast<char>(std::tolower(static_cast<unsigned char>(sql[j])));
        ++j;
      }
      i = j;
      out.push_back({Kind::kWord, word});
    } else if (c == ':' && i + 1 < sql.size() && sql[i + 1] == ':') {
      i += 2;
      out.push_back({Kind::kCast, "::"});
    } else {
      out.push_back({Kind::kOther, std::string(1, c)});
      ++i;
    }
  }
  return out;
}

// Keywords of the grammar written before a parenthesis.
const std::set<std::string>& KeywordsBeforeParen() {
  static const std::set<std::string> words = {
      "all",        "and",        "any",       "array",       "as",
      "between",    "by",         "case",      "cast",        "check",
      "coalesce",   "collate",    "cube",      "decimal",     "default",
      "distinct",   "else",       "end",       "except",      "exclude",
      "exists",     "extract",    "filter",    "for",         "from",
      "greatest",   "group",      "grouping",  "hash",        "having",
      "if",         "in",         "include",   "intersect",   "interval",
      "is",         "join",       "key",       "lateral",     "least",
      "like",       "limit",      "list",      "not",         "nullif",
      "numeric",    "offset",     "on",        "or",          "order",
      "over",       "overlay",    "partition", "position",    "primary",
      "range",      "references", "returning", "rollup",      "row",
      "select",     "set",        "sets",      "some",        "substring",
      "table",      "then",       "time",      "timestamp",   "to",
      "trim",       "union",      "unique",    "using",       "values",
      "varchar",    "char",       "character", "bit",         "float",
      "when",       "where",      "window",    "with",        "within",
      "ordinality", "returns",    "conflict",  "reset",       "only",
      "into",       "index",      "view",      "copy",        "function",
      "procedure",  "exists",     "operator",  "materialized"};
  return words;
}

// Words after which `name (` is an object or an alias, not a call.
const std::set<std::string>& WordsBeforeAName() {
  static const std::set<std::string> words = {
      "table",      "into", "index", "only", "using", "references",
      "ordinality", "as",   "copy",  "view", "type",  "recursive"};
  return words;
}

// Type names the grammar turns into pg_catalog's own (SystemTypeName).
const std::set<std::string>& GrammarTypes() {
  static const std::set<std::string> types = {
      "int",      "integer",   "smallint",  "bigint",   "real",
      "float",    "double",    "decimal",   "dec",      "numeric",
      "boolean",  "char",      "character", "varchar",  "nchar",
      "national", "timestamp", "time",      "interval", "bit"};
  return types;
}

// True when t[open] is "(" and its matching ")" is followed by AS and then
// "(" (or [NOT] MATERIALIZED): the column list of a WITH query,
// `name (a, b) AS (...)`; a call aliased with AS is followed by a name.
bool ColumnListBeforeAs(const std::vector<Token>& t, size_t open) {
  int depth = 0;
  for (size_t j = open; j < t.size(); ++j) {
    if (t[j].text == "(") ++depth;
    if (t[j].text == ")" && --depth == 0) {
      if (j + 2 >= t.size() || t[j + 1].text != "as") return false;
      const std::string& next = t[j + 2].text;
      return next == "(" || next == "not" || next == "materialized";
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> UnqualifiedNames(const std::string& sql) {
  std::vector<Token> t = Tokens(sql);
  std::vector<std::string> found;
  for (size_t i = 0; i < t.size(); ++i) {
    bool name = t[i].kind == Kind::kWord || t[i].kind == Kind::kQuoted;
    if (!name) continue;
    bool qualified = i > 0 && t[i - 1].text == ".";
    bool has_schema = i + 1 < t.size() && t[i + 1].text == ".";
    if (i > 0 && t[i - 1].kind == Kind::kCast) {
      bool grammar =
          t[i].kind == Kind::kWord && GrammarTypes().count(t[i].text);
      if (!has_schema && !grammar) found.push_back("::" + t[i].text);
      continue;
    }
    if (qualified || i + 1 >= t.size() || t[i + 1].text != "(") continue;
    if (t[i].kind == Kind::kWord && KeywordsBeforeParen().count(t[i].text)) {
      continue;
    }
    if (i > 0 && t[i - 1].kind == Kind::kWord &&
        WordsBeforeAName().count(t[i - 1].text)) {
      continue;
    }
    // `) alias (col)` after a subquery, and a WITH query's column list.
    if (i > 0 && t[i - 1].text == ")") continue;
    if (ColumnListBeforeAs(t, i + 1)) continue;
    found.push_back(t[i].text + "(");
  }
  return found;
}

std::vector<LoggedStatement> ParseStatementLog(const std::string& log) {
  std::vector<LoggedStatement> out;
  std::istringstream in(log);
  std::string line;
  bool open = false;
  while (std::getline(in, line)) {
    bool prefixed = line.size() > 4 &&
                    std::isdigit(static_cast<unsigned char>(line[0])) &&
                    line.find(" [") != std::string::npos &&
                    line.find("] app=") != std::string::npos;
    if (!prefixed) {
      // A continuation line of a multi-line statement starts with a tab.
      if (open && !line.empty() && line[0] == '\t') {
        out.back().sql += "\n" + line.substr(1);
      }
      continue;
    }
    open = false;
    size_t pid_at = line.find(" [") + 2;
    size_t app_at = line.find("] app=") + 6;
    size_t level = line.find(" LOG:  ", app_at);
    if (level == std::string::npos) continue;
    std::string rest = line.substr(level + 7);
    std::string sql;
    if (rest.rfind("statement: ", 0) == 0) {
      sql = rest.substr(11);
    } else if (rest.rfind("execute ", 0) == 0 &&
               rest.find(": ") != std::string::npos) {
      sql = rest.substr(rest.find(": ") + 2);
    } else {
      continue;
    }
    LoggedStatement s;
    s.pid = std::atoi(line.c_str() + pid_at);
    s.application_name = line.substr(app_at, level - app_at);
    s.sql = sql;
    out.push_back(std::move(s));
    open = true;
  }
  return out;
}

}  // namespace pglayout
