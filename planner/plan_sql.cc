#include "planner/plan_sql.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/ddl.h"
#include "common/sql.h"

namespace pglayout::planner {
namespace {

constexpr size_t kMaxIdentifier = 63;  // NAMEDATALEN - 1

// Settings that PostgreSQL applies only at server start.
const std::set<std::string>& RestartSettings() {
  static const std::set<std::string> kNames = {
      "io_method",       "io_max_combine_limit", "shared_buffers",
      "max_connections", "wal_buffers",          "huge_pages"};
  return kNames;
}

bool PlainIdentifier(const std::string& name) {
  if (name.empty() || name.size() > kMaxIdentifier) return false;
  if (!(name[0] >= 'a' && name[0] <= 'z') && name[0] != '_') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '.';
    if (!ok) return false;
  }
  return true;
}

// |base| + |suffix| within 63 bytes, cutting the base, not the suffix.
std::string Bounded(const std::string& base, const std::string& suffix) {
  const size_t room = kMaxIdentifier - suffix.size();
  return (base.size() > room ? base.substr(0, room) : base) + suffix;
}

std::string Qualify(const std::string& schema, const std::string& name) {
  return schema.empty() ? QuoteIdent(name)
                        : QuoteIdent(schema) + "." + QuoteIdent(name);
}

// A table's schema and name, and its siblings' names in the same schema.
struct TableName {
  std::string schema;
  std::string name;

  std::string Sibling(const std::string& suffix) const {
    return Bounded(name, suffix);
  }
  std::string QuotedSibling(const std::string& suffix) const {
    return Qualify(schema, Sibling(suffix));
  }
};

Status TablespaceSteps(const Plan& plan, const SqlCatalog& catalog,
                       std::vector<SqlStep>* steps) {
  for (const TablespaceSpec& ts : plan.tablespaces) {
    if (!catalog.existing_tablespaces.count(ts.name)) {
      steps->push_back({fmt::format("tablespace on volume {}", ts.volume),
                        CreateTablespaceSql(ts), false});
    }
    if (ts.options.empty()) continue;
    for (const auto& [name, value] : ts.options) {
      if (!PlainIdentifier(name)) {
        return Status::InvalidInput(fmt::format(
            "tablespace '{}': option '{}' is not a plain identifier", ts.name,
            name));
      }
    }
    steps->push_back(
        {fmt::format("I/O costs and concurrency of volume {}", ts.volume),
         AlterTablespaceOptionsSql(ts)});
  }
  return Status::Ok();
}

const std::vector<std::string>& IndexesOf(const SqlCatalog& catalog,
                                          const std::string& table) {
  static const std::vector<std::string> kNone;
  auto it = catalog.indexes.find(table);
  return it == catalog.indexes.end() ? kNone : it->second;
}

void MoveSteps(const Placement& p, const SqlCatalog& catalog,
               std::vector<SqlStep>* steps) {
  const std::string& ts = p.tablespaces[0];
  const std::string why = p.reason.empty() ? "move" : p.reason;
  steps->push_back({fmt::format("{}: {}", p.relation, why),
                    SetTablespaceSql('r', QuoteQualified(p.relation), ts), true,
                    p.online});
  for (const std::string& index : IndexesOf(catalog, p.relation)) {
    // Online, migrate builds each index on the table's copy in the target
    // tablespace (no REINDEX): the statement states the end result.
    steps->push_back(
        {fmt::format("index {} follows its table{}", index,
                     p.online ? " (built on the online copy)" : ""),
         SetTablespaceSql('i', QuoteQualified(index), ts), true, p.online});
  }
}

Status PartitionSteps(const Placement& p, std::vector<SqlStep>* steps) {
  TableName t;
  PGLAYOUT_RETURN_IF_ERROR(SplitQualifiedName(p.relation, &t.schema, &t.name));
  const std::string parent = t.QuotedSibling("__pglayout_new");
  std::vector<std::string> key;
  for (const std::string& column : p.key) key.push_back(QuoteIdent(column));
  steps->push_back(
      {fmt::format("{}: {} hash partitions on ({})", p.relation, p.partitions,
                   fmt::join(p.key, ", ")),
       fmt::format("CREATE TABLE {} (LIKE {} INCLUDING ALL) PARTITION BY HASH "
                   "({})",
                   parent, QuoteQualified(p.relation), fmt::join(key, ", "))});
  for (int r = 0; r < p.partitions; ++r) {
    const std::string& ts = p.tablespaces[r % p.tablespaces.size()];
    // A partition's indexes go to default_tablespace, not to the
    // partition's: set it so each partition keeps its indexes beside it.
    steps->push_back({fmt::format("partition {} and its indexes on {}", r, ts),
                      fmt::format("SET default_tablespace = {}",
                                  QuoteLiteral(ts == "pg_default" ? "" : ts))});
    steps->push_back(
        {fmt::format("remainder {} of {}", r, p.partitions),
         fmt::format("CREATE TABLE {} PARTITION OF {} FOR VALUES WITH "
                     "(MODULUS {}, REMAINDER {}) TABLESPACE {}",
                     t.QuotedSibling(fmt::format("_p{}", r)), parent,
                     p.partitions, r, QuoteIdent(ts))});
  }
  steps->push_back(
      {"back to the database's default", "RESET default_tablespace"});
  steps->push_back(
      {"online: copy every row with change capture, then swap the names",
       fmt::format("ALTER TABLE {} RENAME TO {}", QuoteQualified(p.relation),
                   QuoteIdent(t.Sibling("__pglayout_old"))),
       true, true});
  steps->push_back(
      {"the partitioned table takes the original name",
       fmt::format("ALTER TABLE {} RENAME TO {}", parent, QuoteIdent(t.name)),
       true, true});
  return Status::Ok();
}

Status SettingSteps(const Plan& plan, std::vector<SqlStep>* steps) {
  if (plan.settings.empty()) return Status::Ok();
  for (const SettingChange& s : plan.settings) {
    if (!PlainIdentifier(s.name)) {
      return Status::InvalidInput(
          fmt::format("setting '{}' is not a plain identifier", s.name));
    }
    SqlStep step{s.previous.empty()
                     ? s.name
                     : fmt::format("{} was {}", s.name, s.previous),
                 AlterSystemSetSql(s.name, s.value), false};
    step.needs_restart = RestartSettings().count(s.name) > 0;
    steps->push_back(step);
  }
  steps->push_back(
      {"apply what does not need a restart", ReloadConfSql(), false});
  return Status::Ok();
}

// Comments come from plan files people edit: a newline in one must not
// start a statement.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

std::string PartitionName(const std::string& table, int remainder) {
  TableName t;
  if (!SplitQualifiedName(table, &t.schema, &t.name).ok()) t.name = table;
  return t.Sibling(fmt::format("_p{}", remainder));
}

std::string NewParentName(const std::string& table) {
  TableName t;
  if (!SplitQualifiedName(table, &t.schema, &t.name).ok()) t.name = table;
  return t.Sibling("__pglayout_new");
}

Status PlanSqlSteps(const Plan& plan, const SqlCatalog& catalog,
                    std::vector<SqlStep>* steps) {
  std::vector<SqlStep> out;
  PGLAYOUT_RETURN_IF_ERROR(TablespaceSteps(plan, catalog, &out));
  for (const Placement& p : plan.placements) {
    std::string schema, name;
    PGLAYOUT_RETURN_IF_ERROR(SplitQualifiedName(p.relation, &schema, &name));
    if (p.strategy == Strategy::kMove && !p.tablespaces.empty()) {
      MoveSteps(p, catalog, &out);
    }
  }
  for (const Placement& p : plan.placements) {
    if (p.strategy != Strategy::kHashPartition || p.tablespaces.empty()) {
      continue;
    }
    PGLAYOUT_RETURN_IF_ERROR(PartitionSteps(p, &out));
  }
  PGLAYOUT_RETURN_IF_ERROR(SettingSteps(plan, &out));
  *steps = std::move(out);
  return Status::Ok();
}

std::string RenderPlanSql(const std::vector<SqlStep>& steps) {
  std::string out =
      "-- pglayout plan.sql: the statements `pglayout migrate` runs, in "
      "order, for review.\n"
      "-- Lines marked [online] are done by migrate's online engine (copy "
      "with change\n"
      "-- capture, then a short swap) and are shown commented out: running "
      "this file\n"
      "-- by hand never takes a long lock. [outside a transaction] statements "
      "cannot\n"
      "-- run inside BEGIN ... COMMIT.\n";
  if (steps.empty()) out += "\n-- Nothing to do: the layout stays as it is.\n";
  for (const SqlStep& step : steps) {
    out += "\n-- " + OneLine(step.comment);
    if (!step.in_transaction) out += " [outside a transaction]";
    if (step.needs_restart) out += " [needs a restart]";
    out += "\n";
    if (step.online) {
      out += "-- [online] " + OneLine(step.sql) + ";\n";
    } else {
      out += step.sql + ";\n";
    }
  }
  return out;
}

}  // namespace pglayout::planner
