#include "observe/rule_facts.h"

namespace pglayout {

void WriteRuleFacts(const TableRuleFacts& f, Relation* r) {
  r->primary_key = f.keys.primary_key;
  r->unique_keys = f.keys.unique_keys;
  r->identity_columns = f.keys.identity_columns;
  r->no_inherit_checks = f.keys.no_inherit_checks;
  r->column_types = f.keys.column_types;
  r->row_key = f.keys.row_key;
  r->key_constraints.clear();
  for (const KeyConstraintFact& k : f.keys.constraints) {
    r->key_constraints.push_back(KeyConstraintEntry(k));
  }
  r->foreign_keys_out.clear();
  for (const TableRuleFacts::ForeignKey& fk : f.dependents.fks_out) {
    r->foreign_keys_out.push_back(fk.described);
  }
  r->foreign_keys_in = f.dependents.fks_in;
  r->referenced_by_partitioned.clear();
  for (const ForeignKeyFact& fk : f.dependents.fks_in_from_partitioned) {
    r->referenced_by_partitioned.push_back({fk.name, fk.table});
  }
  r->dependent_views = f.dependents.views;
  r->triggers.clear();
  r->before_row_triggers.clear();
  r->transition_row_triggers.clear();
  for (const TriggerFact& t : f.dependents.triggers) {
    r->triggers.push_back(t.name);
    if (t.row && t.before) r->before_row_triggers.push_back(t.name);
    if (t.row && t.transition_tables) {
      r->transition_row_triggers.push_back(t.name);
    }
  }
  r->publications = f.dependents.publications;
  r->rule_facts = true;
  r->replica_identity = f.storage.replica_identity;
  r->persistence = f.storage.persistence;
  r->row_security = f.security.row_security;
  r->partitioned = f.storage.partitioned;
  r->partition_key = f.storage.partition_key;
}

}  // namespace pglayout
