// One rule for what a hash-partition conversion and an online copy allow,
// over the facts of one table: the planner judges them from workload.toml
// (planner/remedy.h), migrate's preflight from the live catalog
// (migrator/preflight_checks.h), and both give the same reasons.
// Why each rule holds: docs/online-migration.md#hash-partitioning.

#ifndef PGLAYOUT_COMMON_HASH_RULE_H_
#define PGLAYOUT_COMMON_HASH_RULE_H_

#include <string>
#include <vector>

namespace pglayout {

// A primary key, unique index or exclusion constraint of the table.
struct KeyConstraintFact {
  enum class Kind { kPrimaryKey, kUnique, kExclusion };
  Kind kind = Kind::kUnique;
  std::string name;  // "" when not recorded (an older workload.toml)
  std::vector<std::string> columns;
  bool has_expressions = false;
};

// How workload.toml (and pg/table_facts_read.cc's query) spell a key:
// its kind ("primary", "unique", "exclusion", with "_expressions" when it
// indexes an expression), its index's name, then its plain key columns.
// The parse needs at least the kind and the name.
std::vector<std::string> KeyConstraintEntry(const KeyConstraintFact& key);
KeyConstraintFact KeyConstraintFromEntry(const std::vector<std::string>& entry);

struct ForeignKeyFact {
  std::string name;
  std::string table;  // the table at its other end, quoted-qualified
};

struct TriggerFact {
  std::string name;
  bool row = false;                // FOR EACH ROW
  bool before = false;             // BEFORE
  bool transition_tables = false;  // REFERENCING NEW/OLD TABLE
};

struct HashRuleFacts {
  int server_version_num = 0;
  std::vector<KeyConstraintFact> keys;  // the primary key first
  std::vector<ForeignKeyFact> fks_out;  // its own, to itself included
  // Foreign keys of partitioned tables that reference it.
  std::vector<ForeignKeyFact> fks_in_from_partitioned;
  std::vector<std::string> no_inherit_checks;  // CHECK ... NO INHERIT names
  std::vector<TriggerFact> triggers;           // user triggers
  std::vector<std::string> publications;
  // The columns an online copy identifies rows by: the primary key, else a
  // unique index over NOT NULL plain columns, non-partial; empty = none.
  std::vector<std::string> row_key;
  // Groups of facts its source did not record (an older workload.toml),
  // named for a reader: "NO INHERIT checks". Empty from the catalog.
  std::vector<std::string> unknown;
};

// The key rules alone: a key is needed, and every unique constraint (the
// primary key among them) and exclusion constraint must contain every key
// column and no expression. Empty = allowed. What a Citus distribution
// column shares with hash partitioning.
std::vector<std::string> CheckHashKey(const HashRuleFacts& f,
                                      const std::vector<std::string>& key);

// Everything a hash-partition conversion on |key| needs of the table's
// constraints, foreign keys and triggers on f.server_version_num (the key
// rules included): one reason per blocker, empty = allowed.
std::vector<std::string> CheckHashConversion(
    const HashRuleFacts& f, const std::vector<std::string>& key);

// What the shadow-copy-and-swap of any table (a move or a conversion)
// needs of these facts: a row key, no publication, no partitioned
// referencer before 18. Reasons as the preflight gives them.
std::vector<std::string> CheckOnlineSwap(const HashRuleFacts& f);

// What an online move or split of a partition needs of the foreign keys
// that reference its parent |parent| (or an ancestor): the swap drops them
// before DETACH PARTITION (which would check their rows) and adds them back
// NOT VALID after ATTACH, then validates them
// (docs/online-migration.md#moving-a-partition). |from_partitioned| are the
// referencing tables that are partitioned, the parent itself among them
// (table == parent). Reasons as the preflight gives them; empty = allowed.
std::vector<std::string> CheckParentReferencers(
    const std::string& parent,
    const std::vector<ForeignKeyFact>& from_partitioned,
    int server_version_num);

// The columns of a partition key "HASH (a, "B c")" -> {a, B c}; empty when
// it is not HASH or names an expression, an opclass or a collation.
std::vector<std::string> HashKeyColumns(const std::string& partition_key);

// The reason given when the facts of |unknown| were not recorded.
std::string UnknownFactsReason(const std::vector<std::string>& unknown);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_HASH_RULE_H_
