#include "planner/remedy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace pglayout::planner {
namespace {

bool Contains(const std::vector<std::string>& columns,
              const std::string& column) {
  return std::find(columns.begin(), columns.end(), column) != columns.end();
}

std::string Columns(const std::vector<std::string>& columns) {
  return fmt::format("({})", fmt::join(columns, ", "));
}

// Unique constraints (the primary key among them) that lack a key column.
void CheckUniqueKeys(const Relation& t, PartitionCheck* c) {
  std::vector<std::vector<std::string>> keys = t.unique_keys;
  if (!t.primary_key.empty()) keys.insert(keys.begin(), t.primary_key);
  for (const auto& unique : keys) {
    for (const std::string& column : c->key) {
      if (Contains(unique, column)) continue;
      c->blockers.push_back(fmt::format(
          "unique key {} does not contain key column '{}': a partitioned "
          "table can only enforce uniqueness that includes the partition key",
          Columns(unique), column));
      break;
    }
  }
}

void CheckNoKey(PartitionCheck* c) {
  if (c->key.empty()) {
    c->blockers.push_back(
        "no primary key: give the hash key with --key TABLE=COLUMN[,...]");
  }
}

void CheckTableKind(const Relation& t, int version, PartitionCheck* c) {
  if (version < 110000) {
    c->blockers.push_back("hash partitioning needs PostgreSQL 11 or later");
  }
  if (t.partitioned) {
    c->blockers.push_back(
        "already partitioned (or a partition); re-partitioning is not "
        "supported");
  }
  if (!t.foreign_keys_out.empty() && version < 180000) {
    // Adding them would hold a long lock on the new parent and the
    // referenced tables while every row is checked; migrate refuses.
    c->blockers.push_back(fmt::format(
        "outgoing foreign key(s) {}: a partitioned table takes them without "
        "a long lock only as NOT VALID, which PostgreSQL supports from 18",
        Columns(t.foreign_keys_out)));
  }
  if (t.kind == RelationKind::kMaterializedView) {
    c->blockers.push_back("a materialized view cannot be partitioned");
  }
  if (t.persistence == "temporary") {
    c->blockers.push_back("a temporary table");
  } else if (t.persistence == "unlogged") {
    c->blockers.push_back(
        "unlogged: the online conversion's copy would not survive a crash "
        "(and PostgreSQL 18 does not allow unlogged partitioned tables)");
  }
  if (!t.identity_columns.empty() && version < 170000) {
    c->blockers.push_back(fmt::format(
        "identity column(s) {}: partitioned tables support identity columns "
        "from PostgreSQL 17 (convert to a sequence default first)",
        Columns(t.identity_columns)));
  }
  if (!t.publications.empty()) {
    c->blockers.push_back(fmt::format(
        "in publication(s) {}: subscribers would receive changes under "
        "partition names; migrate refuses this by default",
        Columns(t.publications)));
  }
}

void AddCautions(const Relation& t, int version, PartitionCheck* c) {
  if (!t.foreign_keys_in.empty()) {
    c->cautions.push_back(fmt::format(
        "{} foreign key(s) reference it: re-pointed at the new parent at the "
        "swap (NOT VALID, then validated)",
        t.foreign_keys_in.size()));
  }
  if (!t.foreign_keys_out.empty() && version >= 180000) {
    c->cautions.push_back(
        "outgoing foreign keys: added NOT VALID after the copy, then "
        "validated");
  }
  if (!t.triggers.empty()) {
    c->cautions.push_back(fmt::format(
        "trigger(s) {}: re-created on the new parent at the swap; a BEFORE "
        "ROW trigger cannot move a row to another partition",
        Columns(t.triggers)));
  }
  if (!t.identity_columns.empty() && version >= 170000) {
    c->cautions.push_back(
        "identity columns: the copy uses OVERRIDING SYSTEM "
        "VALUE and the sequence is set at the swap");
  }
  if (t.row_security) {
    c->cautions.push_back("row security: policies are copied to the parent");
  }
  if (!t.dependent_views.empty()) {
    c->cautions.push_back(
        fmt::format("{} dependent view(s) are rebuilt at the swap",
                    t.dependent_views.size()));
  }
  if (t.replica_identity == "full" || t.replica_identity == "index") {
    c->cautions.push_back(fmt::format(
        "replica identity {} must be set on the parent and every partition",
        t.replica_identity));
  }
}

}  // namespace

PartitionCheck CheckHashPartitioning(const Relation& table,
                                     const std::vector<std::string>& key,
                                     int server_version_num) {
  PartitionCheck c;
  c.key = key.empty() ? table.primary_key : key;
  const int version =
      server_version_num > 0 ? server_version_num : kAssumedServerVersion;
  CheckNoKey(&c);
  CheckTableKind(table, version, &c);
  if (!c.key.empty()) CheckUniqueKeys(table, &c);
  AddCautions(table, version, &c);
  return c;
}

PartitionCheck CheckHashKey(const Relation& table,
                            const std::vector<std::string>& key) {
  PartitionCheck c;
  c.key = key.empty() ? table.primary_key : key;
  CheckNoKey(&c);
  if (!c.key.empty()) CheckUniqueKeys(table, &c);
  return c;
}

}  // namespace pglayout::planner
