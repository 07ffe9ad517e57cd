// `pglayout observe --from-segments`: an Oracle database's segment I/O
// statistics (a CSV export of AWR's DBA_HIST_SEG_STAT, or of
// V$SEGMENT_STATISTICS) as a PostgreSQL workload, for planning before any
// PostgreSQL server exists. Columns are matched by name in any case and
// order, Oracle's own names included; segments become PostgreSQL relations
// (partitions and LOB segments add up into their table); rates are 8 KiB
// blocks per second, the average and the 95th percentile of the snapshots.
// Format, mapping and the Oracle queries: docs/oracle-import.md#the-csv.

#ifndef PGLAYOUT_OBSERVE_ORACLE_SEGMENTS_H_
#define PGLAYOUT_OBSERVE_ORACLE_SEGMENTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/model.h"
#include "common/status.h"

namespace pglayout {

struct SegmentImportOptions {
  // Oracle owner (any case) -> PostgreSQL schema (kept as given).
  std::map<std::string, std::string> schema_map;
  uint64_t block_size = 8192;  // Oracle db_block_size in bytes
  char separator = 0;  // ',', ';', '\t' or '|'; 0 = detect from the header
};

// Parses "--separator" text: "," ";" "|" or "tab" (also "\t" or a tab
// character) into *separator. InvalidInput for anything else.
Status ParseSeparator(const std::string& text, char* separator);

// Parses "--schema-map OWNER=schema" entries into options->schema_map.
// InvalidInput for an entry without '=' or with an empty side.
Status ParseSchemaMap(const std::vector<std::string>& entries,
                      SegmentImportOptions* options);

struct SegmentImportSummary {
  int rows = 0;
  int snapshots = 0;
  double seconds = 0;  // total observed time (sum over snapshots)
  std::map<std::string, int> skipped;  // segment type -> rows skipped
  int lobs_without_table = 0;          // LOB rows with no table_name
};

// Turns CSV text into *workload (source "oracle-segments"), hottest first.
// Errors are InvalidInput as "file:line:column: ..." naming the column.
Status ParseSegmentsCsv(std::string_view text, const std::string& source_name,
                        const SegmentImportOptions& options, Workload* workload,
                        SegmentImportSummary* report);

// Reads |path| and parses it.
Status ImportSegmentsFile(const std::string& path,
                          const SegmentImportOptions& options,
                          Workload* workload, SegmentImportSummary* report);

// A PostgreSQL identifier for a lower-cased Oracle name: bare when it is
// [a-z_][a-z0-9_$]*, double-quoted otherwise ("order line" -> "\"order
// line\""). Reserved words are not detected.
std::string PgIdentifier(const std::string& name);

// The query to run in Oracle, as documented in docs/oracle-import.md and
// printed by `pglayout observe --help`.
extern const char kOracleSegmentsQuery[];

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_ORACLE_SEGMENTS_H_
