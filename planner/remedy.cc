#include "planner/remedy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace pglayout::planner {
namespace {

std::string Columns(const std::vector<std::string>& columns) {
  return fmt::format("({})", fmt::join(columns, ", "));
}

// "name (cols) -> table (cols)", or "name -> table" from older files.
ForeignKeyFact ParseForeignKey(const std::string& text) {
  ForeignKeyFact fk;
  const size_t arrow = text.find(" -> ");
  if (arrow == std::string::npos) return {text, ""};
  fk.name = text.substr(0, arrow);
  const size_t columns = fk.name.rfind(" (");
  if (columns != std::string::npos) fk.name.resize(columns);
  fk.table = text.substr(arrow + 4);
  const size_t to_columns = fk.table.rfind(" (");
  if (to_columns != std::string::npos) fk.table.resize(to_columns);
  return fk;
}

// The keys of a file without key_constraints: its primary and unique
// keys, unnamed.
void KeysOfOlderFile(const Relation& t, HashRuleFacts* f) {
  if (!t.primary_key.empty()) {
    f->keys.push_back(
        {KeyConstraintFact::Kind::kPrimaryKey, "", t.primary_key, false});
  }
  for (const auto& unique : t.unique_keys) {
    f->keys.push_back({KeyConstraintFact::Kind::kUnique, "", unique, false});
  }
  f->unknown = {"index names and exclusion constraints", "NO INHERIT checks",
                "row trigger kinds", "foreign keys of partitioned tables to it",
                "row key over NOT NULL columns"};
  f->row_key = !t.primary_key.empty()   ? t.primary_key
               : !t.unique_keys.empty() ? t.unique_keys.front()
                                        : std::vector<std::string>{};
}

}  // namespace

HashRuleFacts RuleFacts(const Relation& t, int server_version_num) {
  HashRuleFacts f;
  f.server_version_num =
      server_version_num > 0 ? server_version_num : kAssumedServerVersion;
  if (!t.rule_facts) {
    KeysOfOlderFile(t, &f);
  } else {
    for (const auto& entry : t.key_constraints) {
      if (entry.size() >= 2) f.keys.push_back(KeyConstraintFromEntry(entry));
    }
    f.row_key = t.row_key;
  }
  for (const std::string& fk : t.foreign_keys_out) {
    f.fks_out.push_back(ParseForeignKey(fk));
  }
  for (const auto& fk : t.referenced_by_partitioned) {
    if (fk.size() == 2) f.fks_in_from_partitioned.push_back({fk[0], fk[1]});
  }
  f.no_inherit_checks = t.no_inherit_checks;
  for (const std::string& name : t.before_row_triggers) {
    f.triggers.push_back({name, true, true, false});
  }
  for (const std::string& name : t.transition_row_triggers) {
    f.triggers.push_back({name, true, false, true});
  }
  f.publications = t.publications;
  return f;
}

namespace {

void CheckTableKind(const Relation& t, int version, PartitionCheck* c) {
  if (version < 110000) {
    c->blockers.push_back("hash partitioning needs PostgreSQL 11 or later");
  }
  if (t.partitioned) {
    c->blockers.push_back(
        "already partitioned (or a partition); re-partitioning is not "
        "supported");
  }
  if (t.kind == RelationKind::kMaterializedView) {
    c->blockers.push_back("a materialized view cannot be partitioned");
  }
  if (t.persistence == Persistence::kTemporary) {
    c->blockers.push_back("a temporary table");
  } else if (t.persistence == Persistence::kUnlogged) {
    c->blockers.push_back(
        "unlogged: the online conversion's copy would not survive a crash "
        "(and PostgreSQL 18 does not allow unlogged partitioned tables)");
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
  if (!t.identity_columns.empty()) {
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
  if (t.replica_identity == ReplicaIdentity::kFull ||
      t.replica_identity == ReplicaIdentity::kIndex) {
    c->cautions.push_back(fmt::format(
        "replica identity {} must be set on the parent and every partition",
        ReplicaIdentityName(*t.replica_identity)));
  }
}

// The shared rule's reasons on c->key (common/hash_rule.h): a conversion's
// and an online swap's blockers, and what the facts leave unknown.
void AddRuleReasons(const HashRuleFacts& facts, PartitionCheck* c) {
  for (std::string& reason : CheckHashConversion(facts, c->key)) {
    c->blockers.push_back(std::move(reason));
  }
  for (std::string& reason : CheckOnlineSwap(facts)) {
    c->blockers.push_back(std::move(reason));
  }
  if (!facts.unknown.empty()) {
    c->cautions.push_back(UnknownFactsReason(facts.unknown) +
                          "; migrate's preflight checks the live catalog");
  }
}

}  // namespace

std::string ParentReferencersReason(const Relation& root, int server_version) {
  if (root.foreign_keys_in.empty()) return "";
  if (!root.rule_facts) {
    return fmt::format(
        "foreign key {} references its parent {}, and workload.toml does not "
        "record whether its table is partitioned (pglayout observe records "
        "it)",
        root.foreign_keys_in.front(), root.name);
  }
  const HashRuleFacts facts = RuleFacts(root, server_version);
  const std::vector<std::string> reasons = CheckParentReferencers(
      root.name, facts.fks_in_from_partitioned, facts.server_version_num);
  return reasons.empty() ? "" : reasons.front();
}

std::string FactsNotReadReason(const Relation& table, const Workload& w) {
  const bool unread = w.source == "live" && !table.rule_facts &&
                      !table.replica_identity && table.primary_key.empty() &&
                      table.unique_keys.empty();
  if (!unread) return "";
  return "workload.toml records none of its keys (observe reads the facts "
         "of its --facts hottest tables only)";
}

PartitionCheck CheckHashPartitioning(const Relation& table,
                                     const std::vector<std::string>& key,
                                     int server_version_num) {
  PartitionCheck c;
  c.key = key.empty() ? table.primary_key : key;
  const HashRuleFacts facts = RuleFacts(table, server_version_num);
  CheckTableKind(table, facts.server_version_num, &c);
  AddRuleReasons(facts, &c);
  AddCautions(table, facts.server_version_num, &c);
  return c;
}

std::string AncestorsReferencersReason(const Relation* parent,
                                       const Relation* root,
                                       int server_version) {
  for (const Relation* a : {parent, root == parent ? nullptr : root}) {
    if (a == nullptr) continue;
    std::string reason = ParentReferencersReason(*a, server_version);
    if (!reason.empty()) return reason;
  }
  return "";
}

PartitionCheck CheckHashSplit(const Relation& leaf, const Relation* parent,
                              const Relation* root, int server_version_num) {
  PartitionCheck c;
  if (parent == nullptr || parent->partition_key.empty()) {
    const std::string& named = PartitionParent(leaf);
    c.blockers.push_back(fmt::format(
        "a partition of {}, whose partition key workload.toml does not "
        "record (pglayout observe records it)",
        named.empty() ? "a table it does not name" : named));
    return c;
  }
  c.key = HashKeyColumns(parent->partition_key);
  if (c.key.empty()) {
    c.blockers.push_back(fmt::format(
        "a partition of {}, which is partitioned by {}: only a partition of "
        "a table hash-partitioned on plain columns is split",
        parent->name, parent->partition_key));
    return c;
  }
  const std::string referenced =
      AncestorsReferencersReason(parent, root, server_version_num);
  if (!referenced.empty()) c.blockers.push_back(referenced);
  if (!leaf.identity_columns.empty()) {
    c.blockers.push_back(fmt::format(
        "column {} is an identity column, which a partition shares with its "
        "parent and its copy cannot",
        leaf.identity_columns.front()));
  }
  if (leaf.persistence == Persistence::kUnlogged ||
      leaf.persistence == Persistence::kTemporary) {
    c.blockers.push_back(std::string(PersistenceName(*leaf.persistence)) +
                         ": its online copy would not survive a crash");
  }
  // The foreign keys it has from its parent or root are not the
  // conversion's to re-add: each new partition gets them, validated, before
  // the swap, and ATTACH takes them over (on any version).
  HashRuleFacts facts = RuleFacts(leaf, server_version_num);
  auto inherited = [&](const ForeignKeyFact& fk) {
    for (const Relation* a : {parent, root}) {
      if (a == nullptr) continue;
      for (const std::string& of_ancestor : a->foreign_keys_out) {
        if (ParseForeignKey(of_ancestor).name == fk.name) return true;
      }
    }
    return false;
  };
  std::erase_if(facts.fks_out, inherited);
  AddRuleReasons(facts, &c);
  return c;
}

PartitionCheck CheckHashKey(const Relation& table,
                            const std::vector<std::string>& key) {
  PartitionCheck c;
  c.key = key.empty() ? table.primary_key : key;
  c.blockers = ::pglayout::CheckHashKey(RuleFacts(table, 0), c.key);
  return c;
}

}  // namespace pglayout::planner
