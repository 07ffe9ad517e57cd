// The JournalSource that reads the latest run of `pglayout migrate`'s
// journal (schema pglayout of the migrated database) with plain SELECTs, so
// that the report does not depend on the migrator library. NotFound when
// the database has no journal tables or no run; SqlError when a query
// fails; messages name the database.
// What comes from where: docs/report.md#the-migration-from-its-journal.

#ifndef PGLAYOUT_REPORT_JOURNAL_SQL_H_
#define PGLAYOUT_REPORT_JOURNAL_SQL_H_

#include <memory>

#include "pg/sql.h"
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
