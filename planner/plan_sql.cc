#include "planner/plan_sql.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/ddl.h"
#include "common/quote.h"
#include "planner/file_text.h"
#include "planner/stripe_script.h"

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
// How migrate's online engine names the partitioned shadow and the old
// copy it keeps (migrator/online_sql.cc), with the oid left open.
constexpr char kShadowName[] = "pglayout_new_<oid>";
constexpr char kOldName[] = "old_<oid>";

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

Status TablespaceSteps(const Plan& plan, const SqlObjects& objects,
                       std::vector<SqlStep>* steps) {
  for (const TablespaceSpec& ts : plan.tablespaces) {
    if (!objects.existing_tablespaces.count(ts.name)) {
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

const std::vector<std::string>& IndexesOf(const SqlObjects& objects,
                                          const std::string& table) {
  static const std::vector<std::string> kNone;
  auto it = objects.indexes.find(table);
  return it == objects.indexes.end() ? kNone : it->second;
}

void MoveSteps(const Placement& p, const SqlObjects& objects,
               std::vector<SqlStep>* steps) {
  const std::string& ts = p.tablespaces[0];
  const std::string why = p.reason.empty() ? "move" : p.reason;
  steps->push_back({fmt::format("{}: {}", p.relation, why),
                    SetTablespaceSql('r', QuoteQualified(p.relation), ts), true,
                    p.online});
  for (const std::string& index : IndexesOf(objects, p.relation)) {
    // Online, migrate builds each index on the table's copy in the target
    // tablespace (no REINDEX): the statement states the end result.
    steps->push_back(
        {fmt::format("index {} follows its table{}", index,
                     p.online ? " (built on the online copy)" : ""),
         SetTablespaceSql('i', QuoteQualified(index), ts), true, p.online});
  }
}

// The conversion as migrate's online engine runs it, every statement
// commented out: the shadow and the old copy are named after the table's
// oid, which only the live objects knows, and a shadow made by hand would
// collide with migrate's partitions.
// A split as migrate runs it, commented out: the copy, partitioned by the
// parent's key with the modulus and remainders read from the catalog, then
// the partition's detach and the copy's attach with its bound.
Status SplitSteps(const Placement& p, const std::string& parent,
                  std::vector<SqlStep>* steps) {
  TableName t;
  PGLAYOUT_RETURN_IF_ERROR(SplitQualifiedName(p.relation, &t.schema, &t.name));
  const std::string shadow = Qualify(t.schema, kShadowName);
  std::vector<std::string> key;
  for (const std::string& column : p.key) key.push_back(QuoteIdent(column));
  auto online = [&](std::string comment, std::string sql) {
    steps->push_back({std::move(comment), std::move(sql), true, true});
  };
  online(fmt::format("{}: a hash partition of {} split into {} partitions of "
                     "its own by ({}), built online by migrate; it has "
                     "remainder <r> of modulus <N> of its parent, read from "
                     "the catalog at run time (`pglayout migrate plan.toml` "
                     "prints the exact SQL)",
                     p.relation, parent, p.partitions, fmt::join(p.key, ", ")),
         fmt::format("CREATE TABLE {} (LIKE {} INCLUDING ALL) PARTITION BY "
                     "HASH ({})",
                     shadow, QuoteQualified(p.relation), fmt::join(key, ", ")));
  for (int i = 0; i < p.partitions; ++i) {
    const std::string& ts = p.tablespaces[i % p.tablespaces.size()];
    online(fmt::format("partition {} and its indexes on {}: every row of the "
                       "partition has one of these remainders",
                       i, ts),
           fmt::format("CREATE TABLE {} PARTITION OF {} FOR VALUES WITH "
                       "(MODULUS <N>*{}, REMAINDER <r>+{}*<N>) TABLESPACE {}",
                       t.QuotedSibling(fmt::format("_p{}", i)), shadow,
                       p.partitions, i, QuoteIdent(ts)));
  }
  online(
      "copy every row with change capture; then, in one short transaction "
      "holding the parent, the partition leaves it (kept until migrate "
      "--finalize) ...",
      fmt::format("ALTER TABLE {} DETACH PARTITION {}", QuoteQualified(parent),
                  QuoteQualified(p.relation)));
  online("... and the copy, under its name, takes its bound",
         fmt::format("ALTER TABLE {} ATTACH PARTITION {} FOR VALUES WITH "
                     "(MODULUS <N>, REMAINDER <r>)",
                     QuoteQualified(parent), QuoteQualified(p.relation)));
  return Status::Ok();
}

Status PartitionSteps(const Placement& p, std::vector<SqlStep>* steps) {
  TableName t;
  PGLAYOUT_RETURN_IF_ERROR(SplitQualifiedName(p.relation, &t.schema, &t.name));
  const std::string parent = Qualify(t.schema, kShadowName);
  std::vector<std::string> key;
  for (const std::string& column : p.key) key.push_back(QuoteIdent(column));
  auto online = [&](std::string comment, std::string sql) {
    steps->push_back({std::move(comment), std::move(sql), true, true});
  };
  online(fmt::format("{}: {} hash partitions on ({}), built online by "
                     "migrate; <oid> is the table's oid, known at run time "
                     "(`pglayout migrate plan.toml` prints the exact SQL)",
                     p.relation, p.partitions, fmt::join(p.key, ", ")),
         fmt::format("CREATE TABLE {} (LIKE {} INCLUDING ALL) PARTITION BY "
                     "HASH ({})",
                     parent, QuoteQualified(p.relation), fmt::join(key, ", ")));
  for (int r = 0; r < p.partitions; ++r) {
    const std::string& ts = p.tablespaces[r % p.tablespaces.size()];
    // A partition's indexes go to default_tablespace, not to the
    // partition's: set it so each partition keeps its indexes beside it.
    online(fmt::format("partition {} and its indexes on {}", r, ts),
           fmt::format("SET default_tablespace = {}",
                       QuoteLiteral(ts == "pg_default" ? "" : ts)));
    online(fmt::format("remainder {} of {}", r, p.partitions),
           fmt::format("CREATE TABLE {} PARTITION OF {} FOR VALUES WITH "
                       "(MODULUS {}, REMAINDER {}) TABLESPACE {}",
                       t.QuotedSibling(fmt::format("_p{}", r)), parent,
                       p.partitions, r, QuoteIdent(ts)));
  }
  online("back to the database's default", "RESET default_tablespace");
  online(
      "copy every row with change capture; then, in one short transaction, "
      "the old table leaves for schema pglayout (kept until migrate "
      "--finalize) ...",
      fmt::format("ALTER TABLE {} RENAME TO {}", QuoteQualified(p.relation),
                  QuoteIdent(kOldName)));
  online("", fmt::format("ALTER TABLE {} SET SCHEMA pglayout",
                         Qualify(t.schema, kOldName)));
  online(
      "... and the partitioned table takes its name",
      fmt::format("ALTER TABLE {} RENAME TO {}", parent, QuoteIdent(t.name)));
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

}  // namespace

std::string PartitionName(const std::string& table, int remainder) {
  TableName t;
  if (!SplitQualifiedName(table, &t.schema, &t.name).ok()) t.name = table;
  return t.Sibling(fmt::format("_p{}", remainder));
}

Status PlanSqlSteps(const Plan& plan, const SqlObjects& objects,
                    std::vector<SqlStep>* steps) {
  std::vector<SqlStep> out;
  PGLAYOUT_RETURN_IF_ERROR(TablespaceSteps(plan, objects, &out));
  for (const Placement& p : plan.placements) {
    std::string schema, name;
    PGLAYOUT_RETURN_IF_ERROR(SplitQualifiedName(p.relation, &schema, &name));
    if (p.strategy == Strategy::kMove && !p.tablespaces.empty()) {
      MoveSteps(p, objects, &out);
    }
  }
  for (const Placement& p : plan.placements) {
    if (p.strategy != Strategy::kHashPartition || p.tablespaces.empty()) {
      continue;
    }
    auto parent = objects.partition_parents.find(p.relation);
    PGLAYOUT_RETURN_IF_ERROR(parent == objects.partition_parents.end()
                                 ? PartitionSteps(p, &out)
                                 : SplitSteps(p, parent->second, &out));
  }
  PGLAYOUT_RETURN_IF_ERROR(SettingSteps(plan, &out));
  *steps = std::move(out);
  return Status::Ok();
}

std::string WalMoveSqlNote(const Plan& plan) {
  if (!plan.wal_move) return "";
  std::string out =
      "\n" +
      SqlNote(fmt::format("pg_wal moves to {} [needs a restart]: not SQL, and "
                          "migrate never does it.",
                          plan.wal_volume)) +
      "\n" + SqlNote("With the server stopped, as stripe.sh writes it out:") +
      "\n";
  // Each command in a block comment of its own: a path cannot end it.
  for (const std::string& line : WalMoveCommands(*plan.wal_move)) {
    out += SqlNote("  " + line) + "\n";
  }
  return out;
}

std::string RenderPlanSql(const std::vector<SqlStep>& steps) {
  std::string out =
      "/* pglayout plan.sql: the statements `pglayout migrate` runs, in "
      "order,\n"
      "   for review. Lines marked [online] are done by migrate's online "
      "engine\n"
      "   (copy with change capture, then a short swap) and are shown "
      "commented\n"
      "   out: running this file by hand never takes a long lock (nor "
      "creates\n"
      "   what migrate will create). [outside a transaction] statements "
      "cannot\n"
      "   run inside BEGIN ... COMMIT. Notes are block comments, which stay\n"
      "   comments whatever is uncommented; they show a line break or "
      "control\n"
      "   character in a name as \\n, \\xNN. */\n"
      "\n/* The literals below mean what they say whatever the database's "
      "default. */\n"
      "SET standard_conforming_strings = on;\n";
  if (steps.empty()) {
    out += "\n" + SqlNote("Nothing to do: the layout stays as it is.") + "\n";
  }
  for (const SqlStep& step : steps) {
    // A step without a comment continues the one before it.
    if (!step.comment.empty()) {
      // Comments come from names and paths people write: a block comment
      // that no value can end (file_text.h).
      std::string note = step.comment;
      if (!step.in_transaction) note += " [outside a transaction]";
      if (step.needs_restart) note += " [needs a restart]";
      out += "\n" + SqlNote(note) + "\n";
    }
    if (step.online) {
      out += "-- [online] " + Visible(step.sql) + ";\n";
    } else {
      out += step.sql + ";\n";
    }
  }
  return out;
}

}  // namespace pglayout::planner
