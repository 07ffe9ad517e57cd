// What observe writes into workload.toml of the facts the one reader
// gives (pg/table_facts_read.h): the planner judges a table by these, the
// migrator's preflight by the same reading through RuleFactsOf.

#ifndef PGLAYOUT_OBSERVE_RULE_FACTS_H_
#define PGLAYOUT_OBSERVE_RULE_FACTS_H_

#include "common/model.h"
#include "pg/table_facts_read.h"

namespace pglayout {

// Sets |r|'s keys, foreign keys, triggers, publications, persistence,
// replica identity and partition key from |f|, and r->rule_facts.
void WriteRuleFacts(const TableRuleFacts& f, Relation* r);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_RULE_FACTS_H_
