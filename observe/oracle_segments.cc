#include "observe/oracle_segments.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "common/files.h"
#include "common/units.h"
#include "observe/workload_stats.h"

namespace pglayout {

const char kOracleSegmentsQuery[] = R"sql(SELECT o.owner,
       o.object_name AS segment_name,
       o.subobject_name AS partition_name,
       CASE WHEN l.index_name = o.object_name THEN 'LOBINDEX'
            ELSE o.object_type END AS segment_type,
       s.snap_id,
       SUM(s.physical_reads_delta) AS physical_reads,
       SUM(s.physical_writes_delta) AS physical_writes,
       MAX(NVL(g.bytes, 0)) AS bytes,
       MAX(ROUND((CAST(sn.end_interval_time AS DATE)
                - CAST(sn.begin_interval_time AS DATE)) * 86400))
         AS interval_seconds,
       MAX(COALESCE(i.table_owner, l.owner)) AS table_owner,
       MAX(COALESCE(i.table_name, l.table_name)) AS table_name
  FROM dba_hist_seg_stat s
  JOIN dba_hist_seg_stat_obj o
    ON o.dbid = s.dbid AND o.ts# = s.ts# AND o.obj# = s.obj#
   AND o.dataobj# = s.dataobj#
  JOIN dba_hist_snapshot sn
    ON sn.dbid = s.dbid AND sn.snap_id = s.snap_id
   AND sn.instance_number = s.instance_number
  LEFT JOIN dba_segments g
    ON g.owner = o.owner AND g.segment_name = o.object_name
   AND NVL(g.partition_name, '-') = NVL(o.subobject_name, '-')
  LEFT JOIN dba_indexes i
    ON i.owner = o.owner AND i.index_name = o.object_name
  LEFT JOIN dba_lobs l
    ON l.owner = o.owner
   AND (l.segment_name = o.object_name OR l.index_name = o.object_name)
 WHERE s.dbid = (SELECT dbid FROM v$database)
   AND sn.begin_interval_time >= SYSTIMESTAMP - INTERVAL '7' DAY
   AND o.owner NOT IN ('SYS', 'SYSTEM', 'SYSAUX', 'XDB', 'MDSYS', 'CTXSYS',
                       'ORDSYS', 'OLAPSYS', 'WMSYS', 'DBSNMP', 'OUTLN',
                       'AUDSYS', 'GSMADMIN_INTERNAL', 'LBACSYS', 'DVSYS')
 GROUP BY o.owner, o.object_name, o.subobject_name, o.object_type,
          l.index_name, s.snap_id
 ORDER BY s.snap_id, o.owner, o.object_name, o.subobject_name)sql";

namespace {

// ------------------------------------------------------------ CSV reading --

struct CsvField {
  std::string text;
  int column = 0;  // 1-based character column where the field starts
};

struct CsvRow {
  int line = 0;  // 1-based line where the row starts
  std::vector<CsvField> fields;
};

// RFC 4180: fields separated by commas, optionally double-quoted with ""
// for a quote inside; quoted fields may span lines; CRLF or LF.
class CsvReader {
 public:
  CsvReader(std::string_view text, const std::string& file)
      : text_(text), file_(file) {}

  // Reads the next non-blank row; false at the end.
  bool Next(CsvRow* row, Status* status) {
    while (pos_ < text_.size()) {
      row->line = line_;
      row->fields.clear();
      *status = ReadRow(row);
      if (!status->ok()) return false;
      bool blank = row->fields.size() == 1 && row->fields[0].text.empty();
      if (!blank) return true;
    }
    return false;
  }

 private:
  Status ReadRow(CsvRow* row) {
    while (true) {
      CsvField field;
      field.column = Column();
      PGLAYOUT_RETURN_IF_ERROR(ReadField(&field.text));
      row->fields.push_back(std::move(field));
      if (pos_ >= text_.size()) return Status::Ok();
      char c = text_[pos_++];
      if (c == ',') continue;
      if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
      NewLine();
      return Status::Ok();
    }
  }

  Status ReadField(std::string* out) {
    if (pos_ < text_.size() && text_[pos_] == '"') return ReadQuoted(out);
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
           text_[pos_] != '\r') {
      if (text_[pos_] == '"') {
        return Error(Column(),
                     "a quote inside an unquoted field; quote the "
                     "whole field and double the quote");
      }
      *out += text_[pos_++];
    }
    return Status::Ok();
  }

  Status ReadQuoted(std::string* out) {
    int start_line = line_, start_column = Column();
    ++pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          *out += '"';
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
            text_[pos_] != '\r') {
          return Error(Column(), "text after a closing quote");
        }
        return Status::Ok();
      }
      if (c == '\n') NewLine();
      *out += c;
    }
    line_ = start_line;
    return Error(start_column, "quoted field is never closed");
  }

  int Column() const { return static_cast<int>(pos_ - line_start_) + 1; }
  void NewLine() {
    ++line_;
    line_start_ = pos_;
  }
  Status Error(int column, const std::string& what) const {
    return Status::InvalidInput(
        fmt::format("{}:{}:{}: {}", file_, line_, column, what));
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

// ------------------------------------------------------- column mapping --

enum Column {
  kOwner,
  kSegmentName,
  kSegmentType,
  kPhysicalReads,
  kPhysicalWrites,
  kBytes,
  kIntervalSeconds,
  kPartitionName,
  kSnapId,
  kTableOwner,
  kTableName,
  kColumnCount
};
constexpr const char* kColumnNames[kColumnCount] = {
    "owner",           "segment_name", "segment_type",     "physical_reads",
    "physical_writes", "bytes",        "interval_seconds", "partition_name",
    "snap_id",         "table_owner",  "table_name"};
constexpr int kRequiredColumns = kPartitionName;  // the first seven

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string Upper(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

Status MapHeader(const CsvRow& header, const std::string& file,
                 std::vector<int>* index) {
  index->assign(kColumnCount, -1);
  for (size_t i = 0; i < header.fields.size(); ++i) {
    std::string name = Lower(Trim(header.fields[i].text));
    for (int c = 0; c < kColumnCount; ++c) {
      if (name == kColumnNames[c]) (*index)[c] = static_cast<int>(i);
    }
  }
  std::vector<std::string> missing;
  for (int c = 0; c < kRequiredColumns; ++c) {
    if ((*index)[c] < 0) missing.push_back(kColumnNames[c]);
  }
  if (missing.empty()) return Status::Ok();
  return Status::InvalidInput(fmt::format(
      "{}:{}: the header lacks column(s) {}; required: owner, segment_name, "
      "segment_type, physical_reads, physical_writes, bytes, "
      "interval_seconds (see docs/oracle-import.md)",
      file, header.line, fmt::join(missing, ", ")));
}

// One CSV row, checked.
struct SegmentRow {
  std::string owner, segment, type, partition, snap, table_owner, table;
  double reads = 0, writes = 0, bytes = 0, seconds = 0;
};

class RowReader {
 public:
  RowReader(const CsvRow& row, const std::vector<int>& index,
            const std::string& file)
      : row_(row), index_(index), file_(file) {}

  Status Read(SegmentRow* out) {
    if (row_.fields.size() < static_cast<size_t>(MaxRequiredIndex() + 1)) {
      return Status::InvalidInput(
          fmt::format("{}:{}: {} field(s), fewer than the header's columns",
                      file_, row_.line, row_.fields.size()));
    }
    PGLAYOUT_RETURN_IF_ERROR(Text(kOwner, true, &out->owner));
    PGLAYOUT_RETURN_IF_ERROR(Text(kSegmentName, true, &out->segment));
    PGLAYOUT_RETURN_IF_ERROR(Text(kSegmentType, true, &out->type));
    PGLAYOUT_RETURN_IF_ERROR(Text(kPartitionName, false, &out->partition));
    PGLAYOUT_RETURN_IF_ERROR(Text(kSnapId, false, &out->snap));
    PGLAYOUT_RETURN_IF_ERROR(Text(kTableOwner, false, &out->table_owner));
    PGLAYOUT_RETURN_IF_ERROR(Text(kTableName, false, &out->table));
    PGLAYOUT_RETURN_IF_ERROR(Number(kPhysicalReads, &out->reads));
    PGLAYOUT_RETURN_IF_ERROR(Number(kPhysicalWrites, &out->writes));
    PGLAYOUT_RETURN_IF_ERROR(Number(kBytes, &out->bytes));
    PGLAYOUT_RETURN_IF_ERROR(Number(kIntervalSeconds, &out->seconds));
    if (out->seconds <= 0) {
      return Fail(kIntervalSeconds, "must be more than 0");
    }
    out->type = Upper(out->type);
    return Status::Ok();
  }

 private:
  int MaxRequiredIndex() const {
    return *std::max_element(index_.begin(), index_.begin() + kRequiredColumns);
  }

  const CsvField* Field(int column) const {
    int i = index_[column];
    if (i < 0 || static_cast<size_t>(i) >= row_.fields.size()) return nullptr;
    return &row_.fields[i];
  }

  Status Text(int column, bool required, std::string* out) {
    const CsvField* f = Field(column);
    *out = f ? Trim(f->text) : "";
    if (required && out->empty()) return Fail(column, "is empty");
    return Status::Ok();
  }

  Status Number(int column, double* out) {
    const CsvField* f = Field(column);
    std::string text = Trim(f->text);
    char* end = nullptr;
    *out = std::strtod(text.c_str(), &end);
    // Oracle prints NULL deltas as empty: no activity recorded.
    if (text.empty()) *out = 0;
    if (!text.empty() && (end == text.c_str() || *end != '\0' ||
                          !std::isfinite(*out) || *out < 0)) {
      return Fail(column, fmt::format("expected a non-negative number, got "
                                      "'{}'",
                                      text));
    }
    return Status::Ok();
  }

  Status Fail(int column, const std::string& what) const {
    const CsvField* f = Field(column);
    return Status::InvalidInput(fmt::format("{}:{}:{}: column '{}' {}", file_,
                                            row_.line, f ? f->column : 1,
                                            kColumnNames[column], what));
  }

  const CsvRow& row_;
  const std::vector<int>& index_;
  const std::string& file_;
};

// ------------------------------------------------------------ aggregation --

enum class Role { kTable, kIndex, kLob, kSkip };

Role RoleOf(const std::string& type) {
  if (type == "TABLE" || type == "TABLE PARTITION" ||
      type == "TABLE SUBPARTITION") {
    return Role::kTable;
  }
  if (type == "INDEX" || type == "INDEX PARTITION" ||
      type == "INDEX SUBPARTITION") {
    return Role::kIndex;
  }
  if (type == "LOBSEGMENT" || type == "LOBINDEX" || type == "LOB" ||
      type == "LOB PARTITION" || type == "LOB SUBPARTITION") {
    return Role::kLob;
  }
  return Role::kSkip;
}

// One PostgreSQL relation being assembled.
struct Target {
  RelationKind kind = RelationKind::kTable;
  std::string table;
  bool partitioned = false;
  std::map<std::string, double> reads, writes;  // by snapshot, blocks
  std::map<std::string, double> part_bytes;     // by Oracle segment part
};

class Aggregator {
 public:
  explicit Aggregator(const SegmentImportOptions& options)
      : options_(options) {}

  void Add(const SegmentRow& row, SegmentImportReport* report) {
    ++report->rows;
    snap_seconds_[row.snap] = std::max(snap_seconds_[row.snap], row.seconds);
    Role role = RoleOf(row.type);
    if (Upper(row.segment).rfind("BIN$", 0) == 0) {
      ++report->skipped[row.type + " in the recycle bin (BIN$)"];
      return;
    }
    if (role == Role::kSkip) {
      ++report->skipped[row.type];
      return;
    }
    if (role == Role::kLob && row.table.empty()) {
      ++report->lobs_without_table;
      return;
    }
    std::string schema = Schema(row.owner);
    std::string table_schema =
        row.table_owner.empty() ? schema : Schema(row.table_owner);
    std::string table =
        row.table.empty() ? ""
                          : table_schema + "." + PgIdentifier(Lower(row.table));
    std::string name = role == Role::kLob
                           ? table
                           : schema + "." + PgIdentifier(Lower(row.segment));
    Target& t = targets_[name];
    if (role == Role::kIndex) {
      t.kind = RelationKind::kIndex;
      t.table = table;
    }
    if (role == Role::kTable && !row.partition.empty()) t.partitioned = true;
    t.reads[row.snap] += row.reads;
    t.writes[row.snap] += row.writes;
    // Sizes are per Oracle segment (and partition), the same in every
    // snapshot: keep the largest, then add the parts up.
    std::string part = row.type + "/" + row.segment + "/" + row.partition;
    t.part_bytes[part] = std::max(t.part_bytes[part], row.bytes);
  }

  void Finish(Workload* w, SegmentImportReport* report) const {
    double total = 0;
    for (const auto& [snap, seconds] : snap_seconds_) total += seconds;
    report->snapshots = static_cast<int>(snap_seconds_.size());
    report->seconds = total;
    w->duration = total;
    for (const auto& [name, t] : targets_)
      w->relations.push_back(Make(name, t, total));
    std::sort(w->relations.begin(), w->relations.end(),
              [](const Relation& a, const Relation& b) {
                double ha = a.read_iops + a.write_iops;
                double hb = b.read_iops + b.write_iops;
                return ha != hb ? ha > hb : a.name < b.name;
              });
  }

 private:
  std::string Schema(const std::string& owner) const {
    for (const auto& [from, to] : options_.schema_map) {
      if (Upper(from) == Upper(owner)) return PgIdentifier(to);
    }
    return PgIdentifier(Lower(owner));
  }

  // Blocks of db_block_size per second -> 8 KiB blocks per second, for
  // every snapshot (0 where the segment was not among AWR's top segments).
  std::vector<double> Rates(const std::map<std::string, double>& blocks) const {
    double scale = static_cast<double>(options_.block_size) /
                   static_cast<double>(kPageSize);
    std::vector<double> rates;
    for (const auto& [snap, seconds] : snap_seconds_) {
      auto it = blocks.find(snap);
      rates.push_back(it == blocks.end() ? 0 : it->second * scale / seconds);
    }
    return rates;
  }

  double Average(const std::map<std::string, double>& blocks,
                 double total) const {
    double sum = 0;
    for (const auto& [snap, b] : blocks) sum += b;
    return sum * static_cast<double>(options_.block_size) /
           static_cast<double>(kPageSize) / total;
  }

  Relation Make(const std::string& name, const Target& t, double total) const {
    Relation r;
    r.name = name;
    r.kind = t.kind;
    r.table = t.table;
    double bytes = 0;
    for (const auto& [part, b] : t.part_bytes) bytes += b;
    r.size = static_cast<uint64_t>(std::llround(bytes));
    r.read_iops = Percentile95(Rates(t.reads));
    r.write_iops = Percentile95(Rates(t.writes));
    r.read_iops_avg = Average(t.reads, total);
    r.write_iops_avg = Average(t.writes, total);
    r.partitioned = t.partitioned;
    return r;
  }

  const SegmentImportOptions& options_;
  std::map<std::string, double> snap_seconds_;
  std::map<std::string, Target> targets_;
};

}  // namespace

std::string PgIdentifier(const std::string& name) {
  bool bare =
      !name.empty() &&
      (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    bool ok = std::islower(static_cast<unsigned char>(c)) ||
              std::isdigit(static_cast<unsigned char>(c)) || c == '_' ||
              c == '$';
    bare = bare && ok;
  }
  if (bare) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

Status ParseSchemaMap(const std::vector<std::string>& entries,
                      SegmentImportOptions* options) {
  for (const std::string& entry : entries) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      return Status::InvalidInput(fmt::format(
          "--schema-map '{}': expected OWNER=schema, e.g. SALES=sales", entry));
    }
    options->schema_map[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return Status::Ok();
}

Status ParseSegmentsCsv(std::string_view text, const std::string& source_name,
                        const SegmentImportOptions& options, Workload* workload,
                        SegmentImportReport* report) {
  if (options.block_size == 0 || options.block_size % 512 != 0) {
    return Status::InvalidInput(fmt::format(
        "Oracle block size {} is not a multiple of 512", options.block_size));
  }
  CsvReader reader(text, source_name);
  CsvRow header;
  Status st;
  if (!reader.Next(&header, &st)) {
    if (!st.ok()) return st;
    return Status::InvalidInput(source_name +
                                ": empty file, expected a header");
  }
  std::vector<int> index;
  PGLAYOUT_RETURN_IF_ERROR(MapHeader(header, source_name, &index));
  Aggregator aggregator(options);
  SegmentImportReport r;
  CsvRow row;
  while (reader.Next(&row, &st)) {
    SegmentRow segment;
    PGLAYOUT_RETURN_IF_ERROR(RowReader(row, index, source_name).Read(&segment));
    aggregator.Add(segment, &r);
  }
  PGLAYOUT_RETURN_IF_ERROR(st);
  if (r.rows == 0) {
    return Status::InvalidInput(source_name +
                                ": no data rows after the header");
  }
  Workload w;
  w.source = "oracle-segments";
  aggregator.Finish(&w, &r);
  *workload = std::move(w);
  *report = std::move(r);
  return Status::Ok();
}

Status ImportSegmentsFile(const std::string& path,
                          const SegmentImportOptions& options,
                          Workload* workload, SegmentImportReport* report) {
  std::string text;
  Status st = ReadTextFile(path, &text);
  if (!st.ok()) return st.WithContext("cannot read segment statistics");
  return ParseSegmentsCsv(text, path, options, workload, report);
}

}  // namespace pglayout
