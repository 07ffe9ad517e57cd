#include "pg/conninfo.h"

#include <libpq-fe.h>

#include <string_view>

#include "pg/conninfo_mask.h"

namespace pglayout {
namespace {

// 'value' with libpq's escapes: a backslash before each ' and \.
std::string Quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// As libpq tells a connection string from a database name (PQconnectdbParams
// with expand_dbname): an '=' or a URI prefix.
bool IsConnectionString(std::string_view dbname) {
  return dbname.find('=') != std::string_view::npos ||
         dbname.rfind("postgresql://", 0) == 0 ||
         dbname.rfind("postgres://", 0) == 0;
}

// Sets |keyword| to |value| even when empty: libpq lets every value an
// expanded dbname holds replace the one before it.
void Replace(ConninfoPairs* pairs, const std::string& keyword,
             const std::string& value) {
  for (auto& [k, v] : *pairs) {
    if (k == keyword) {
      v = value;
      return;
    }
  }
  pairs->emplace_back(keyword, value);
}

}  // namespace

Status ParseConninfo(const std::string& text, ConninfoPairs* pairs) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
  if (options == nullptr) {
    std::string why = error ? error : "out of memory";
    PQfreemem(error);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) {
      why.pop_back();
    }
    return Status::InvalidInput("invalid connection string: " +
                                RedactPasswords(why, text));
  }
  pairs->clear();
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val != nullptr) pairs->emplace_back(o->keyword, o->val);
  }
  PQconninfoFree(options);
  return Status::Ok();
}

std::string JoinConninfo(const ConninfoPairs& pairs) {
  std::string out;
  for (const auto& [keyword, value] : pairs) {
    if (!out.empty()) out += ' ';
    out += keyword + "=" + Quoted(value);
  }
  return out;
}

void SetConninfo(ConninfoPairs* pairs, const std::string& keyword,
                 const std::string& value) {
  if (!value.empty()) Replace(pairs, keyword, value);
}

Status ComposeConninfo(const ConnectionOptions& options,
                       std::string* conninfo) {
  // psql's order: host, port and user, then dbname expanded over them.
  ConninfoPairs pairs;
  SetConninfo(&pairs, "host", options.host);
  SetConninfo(&pairs, "port", options.port);
  SetConninfo(&pairs, "user", options.username);
  if (IsConnectionString(options.dbname)) {
    ConninfoPairs named;
    Status st = ParseConninfo(options.dbname, &named);
    if (!st.ok()) return st.WithContext("--dbname");
    for (const auto& [keyword, value] : named) Replace(&pairs, keyword, value);
  } else {
    SetConninfo(&pairs, "dbname", options.dbname);
  }
  *conninfo = JoinConninfo(pairs);
  return Status::Ok();
}

}  // namespace pglayout
