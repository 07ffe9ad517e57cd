#include "common/ddl.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/quote.h"

namespace pglayout {
namespace {

// "fillfactor=90" -> "fillfactor" = '90'; the name is a reloption keyword.
std::string OptionAssignment(const std::string& option,
                             const std::string& prefix) {
  size_t eq = option.find('=');
  std::string name = option.substr(0, eq);
  std::string value = eq == std::string::npos ? "" : option.substr(eq + 1);
  return prefix + QuoteIdent(name) + " = " + QuoteLiteral(value);
}

}  // namespace

std::string CreateTablespaceSql(const TablespaceSpec& ts) {
  return fmt::format("CREATE TABLESPACE {} LOCATION {}", QuoteIdent(ts.name),
                     QuoteLiteral(ts.path));
}

std::string AlterTablespaceOptionsSql(const TablespaceSpec& ts) {
  if (ts.options.empty()) return "";
  std::vector<std::string> items;
  for (const auto& [name, value] : ts.options) {
    items.push_back(QuoteIdent(name) + " = " + QuoteLiteral(value));
  }
  return fmt::format("ALTER TABLESPACE {} SET ({})", QuoteIdent(ts.name),
                     fmt::join(items, ", "));
}

std::string SetTablespaceSql(char relkind, const std::string& relation,
                             const std::string& tablespace) {
  const char* what = relkind == 'i'   ? "INDEX"
                     : relkind == 'm' ? "MATERIALIZED VIEW"
                                      : "TABLE";
  return fmt::format("ALTER {} {} SET TABLESPACE {}", what, relation,
                     QuoteIdent(tablespace));
}

std::string ReindexConcurrentlySql(const std::string& index,
                                   const std::string& tablespace) {
  return fmt::format("REINDEX (TABLESPACE {}) INDEX CONCURRENTLY {}",
                     QuoteIdent(tablespace), index);
}

std::string AlterSystemSetSql(const std::string& name,
                              const std::string& value) {
  return fmt::format("ALTER SYSTEM SET {} = {}", QuoteIdent(name),
                     QuoteLiteral(value));
}

std::string AlterSystemResetSql(const std::string& name) {
  return fmt::format("ALTER SYSTEM RESET {}", QuoteIdent(name));
}

std::string ReloadConfSql() { return "SELECT pg_catalog.pg_reload_conf()"; }

std::string WithOptionsClause(const std::vector<std::string>& reloptions,
                              const std::vector<std::string>& toast_options) {
  std::vector<std::string> items;
  for (const std::string& o : reloptions) {
    items.push_back(OptionAssignment(o, ""));
  }
  for (const std::string& o : toast_options) {
    items.push_back(OptionAssignment(o, "toast."));
  }
  if (items.empty()) return "";
  return fmt::format("WITH ({})", fmt::join(items, ", "));
}

}  // namespace pglayout
