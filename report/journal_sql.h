// The JournalSource that reads `pglayout migrate`'s journal from schema
// "pglayout" of the migrated database: the tables migrator/journal.h
// creates (run, step, setting), read with plain SELECTs so that the report
// does not depend on the migrator library. The latest run is read.
//
// What comes from where:
// - steps: pglayout.step in step order; duration = finished_at -
//   started_at; rows = rows_copied; kind and relation from the step key
//   ("move:public.orders") or the step's relation; bytes = the relation's
//   size now (the journal counts rows, not bytes).
// - checkpoints: today's counters (pg_stat_checkpointer on 17+, else
//   pg_stat_bgwriter) minus those the run recorded at its start, so for a
//   finished run they cover the time since it started
//   (checkpoints_until_read).
// - settings: pglayout.setting; kind "guard" is temporary.
//
// Errors: NotFound when the database has no journal tables or no run;
// SqlError when a query fails. Messages name the database.

#ifndef PGLAYOUT_REPORT_JOURNAL_SQL_H_
#define PGLAYOUT_REPORT_JOURNAL_SQL_H_

#include <memory>

#include "common/sql.h"
#include "report/journal.h"

namespace pglayout::report {

// |session| is borrowed and must outlive the source.
std::unique_ptr<JournalSource> MakeSqlJournalSource(SqlSession* session);

// A step's journal phase and detail in words ("copying rows into the
// shadow table (copy by heap block ranges)"). The detail of an online step
// is the migrator's own record (a structure hash, the copy's mode, a
// filenode...); only how the copy goes is worth a reader's time.
std::string StepDescription(const std::string& phase,
                            const std::string& detail);

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_JOURNAL_SQL_H_
