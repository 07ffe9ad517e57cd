#include "pg/conninfo.h"

#include <libpq-fe.h>

#include <string_view>
#include <utility>
#include <vector>

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

using Pairs = std::vector<std::pair<std::string, std::string>>;

Status ParseConnectionString(const std::string& text, Pairs* pairs) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
  if (options == nullptr) {
    std::string why = error ? error : "out of memory";
    PQfreemem(error);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) {
      why.pop_back();
    }
    return Status::InvalidInput("--dbname: invalid connection string: " +
                                RedactPasswords(why, text));
  }
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val != nullptr) pairs->emplace_back(o->keyword, o->val);
  }
  PQconninfoFree(options);
  return Status::Ok();
}

void Set(Pairs* pairs, const std::string& keyword, const std::string& value) {
  if (value.empty()) return;
  for (auto& [k, v] : *pairs) {
    if (k == keyword) {
      v = value;
      return;
    }
  }
  pairs->emplace_back(keyword, value);
}

}  // namespace

Status ComposeConninfo(const ConnectionOptions& options,
                       std::string* conninfo) {
  Pairs pairs;
  if (IsConnectionString(options.dbname)) {
    PGLAYOUT_RETURN_IF_ERROR(ParseConnectionString(options.dbname, &pairs));
  } else {
    Set(&pairs, "dbname", options.dbname);
  }
  Set(&pairs, "host", options.host);
  Set(&pairs, "port", options.port);
  Set(&pairs, "user", options.username);
  conninfo->clear();
  for (const auto& [keyword, value] : pairs) {
    if (!conninfo->empty()) *conninfo += ' ';
    *conninfo += keyword + "=" + Quoted(value);
  }
  return Status::Ok();
}

}  // namespace pglayout
