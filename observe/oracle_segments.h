// `pglayout observe --from-segments`: an Oracle database's segment I/O
// statistics (AWR: DBA_HIST_SEG_STAT) as a PostgreSQL workload, for teams
// that plan the PostgreSQL layout before any PostgreSQL server exists.
//
// The CSV (docs/oracle-import.md has the Oracle queries that produce it and
// the reasons behind the rules below): a header row, then one row per
// segment (and per AWR snapshot when snap_id is given). Column names are
// case-insensitive and in any order; unknown columns are ignored.
//
//   required: owner, segment_name, segment_type, physical_reads,
//             physical_writes, bytes, interval_seconds
//   optional: partition_name, snap_id, table_owner, table_name
//
// Oracle's own column names are accepted too: object_name, object_type,
// subobject_name, physical_reads_delta, physical_writes_delta,
// space_allocated_total or space_used_total (for bytes). Two header
// columns naming the same column are an error. Without interval_seconds,
// begin_interval_time and end_interval_time give it (formats in the doc);
// without snap_id, begin_interval_time tells the snapshots apart.
//
// V$SEGMENT_STATISTICS's long form (statistic_name, value: one row per
// segment and statistic) is pivoted: 'physical reads', 'physical writes',
// and 'space allocated' when there is no bytes column; other statistics
// are ignored.
//
// The text may start with a UTF-8 byte-order mark (skipped); lines end
// with LF or CRLF; fields are separated by SegmentImportOptions::separator,
// or by the one of , ; tab | that splits the header into the most known
// column names. UTF-16 text is refused.
//
// physical_reads / physical_writes are Oracle blocks (PHYSICAL_READS_DELTA,
// PHYSICAL_WRITES_DELTA) during interval_seconds; bytes is the segment's
// size (DBA_SEGMENTS.BYTES). table_name names the table of an INDEX or LOB
// segment.
//
// Mapping to PostgreSQL:
//   - names are lower-cased; the schema is the owner, lower-cased, unless
//     SegmentImportOptions::schema_map says otherwise (OWNER=schema);
//   - TABLE [SUB]PARTITION rows add up into their table (partitioned =
//     true); INDEX [SUB]PARTITION rows into their index;
//   - LOB segments (LOBSEGMENT, LOBINDEX, LOB [SUB]PARTITION) add up into
//     their table, since PostgreSQL keeps TOAST with its table;
//   - other types (CLUSTER, NESTED TABLE, undo, ...) and recycle-bin
//     objects (BIN$...) are skipped and counted;
//   - blocks are converted to 8 KiB blocks with block_size (db_block_size).
// Rates: the average is total blocks over total observed seconds; the peak
// is the 95th percentile of the per-snapshot rates (one snapshot when there
// is no snap_id column). write_iops is Oracle's measured DBWR writes.

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

struct SegmentImportReport {
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
                        SegmentImportReport* report);

// Reads |path| and parses it.
Status ImportSegmentsFile(const std::string& path,
                          const SegmentImportOptions& options,
                          Workload* workload, SegmentImportReport* report);

// A PostgreSQL identifier for a lower-cased Oracle name: bare when it is
// [a-z_][a-z0-9_$]*, double-quoted otherwise ("order line" -> "\"order
// line\""). Reserved words are not detected.
std::string PgIdentifier(const std::string& name);

// The query to run in Oracle, as documented in docs/oracle-import.md and
// printed by `pglayout observe --help`.
extern const char kOracleSegmentsQuery[];

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_ORACLE_SEGMENTS_H_
