#include "observe/oracle_segments.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "common/files.h"
#include "common/text.h"
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

std::string SeparatorName(char separator) {
  return separator == '\t' ? "tab" : fmt::format("'{}'", separator);
}

// RFC 4180 with a chosen separator: fields optionally double-quoted with ""
// for a quote inside; quoted fields may span lines; CRLF or LF.
class CsvReader {
 public:
  CsvReader(std::string_view text, char separator, const std::string& file)
      : text_(text), separator_(separator), file_(file) {}

  // Reads the next row that has a non-empty field; false at the end.
  bool Next(CsvRow* row, Status* status) {
    while (pos_ < text_.size()) {
      row->line = line_;
      row->fields.clear();
      *status = ReadRow(row);
      if (!status->ok()) return false;
      // Spreadsheets write rows of empty cells (";;;;") after the data.
      bool blank =
          std::all_of(row->fields.begin(), row->fields.end(),
                      [](const CsvField& f) { return f.text.empty(); });
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
      if (c == separator_) continue;
      if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
      NewLine();
      return Status::Ok();
    }
  }

  bool AtFieldEnd() const {
    if (pos_ >= text_.size()) return true;
    char c = text_[pos_];
    return c == separator_ || c == '\n' || c == '\r';
  }

  Status ReadField(std::string* out) {
    if (pos_ < text_.size() && text_[pos_] == '"') return ReadQuoted(out);
    while (!AtFieldEnd()) {
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
        if (!AtFieldEnd()) {
          return Error(Column(), fmt::format("text after a closing quote; "
                                             "fields are separated by {} "
                                             "(--separator)",
                                             SeparatorName(separator_)));
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
  char separator_;
  const std::string& file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Excel's "Unicode Text" is UTF-16; every other byte is 0 and no column
// name would match, so say what it is.
Status CheckEncoding(std::string_view text, const std::string& file) {
  bool utf16 = text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') ||
                                    (text[0] == '\xFE' && text[1] == '\xFF'));
  if (!utf16) return Status::Ok();
  return Status::InvalidInput(
      file +
      ": the file is UTF-16 text (Excel's \"Unicode Text\"); save it as "
      "\"CSV UTF-8\" or export it again from Oracle");
}

std::string_view SkipBom(std::string_view text) {
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) {
    text.remove_prefix(kUtf8Bom.size());
  }
  return text;
}

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
  kBeginTime,
  kEndTime,
  kStatisticName,
  kValue,
  kColumnCount
};
constexpr const char* kColumnNames[kColumnCount] = {"owner",
                                                    "segment_name",
                                                    "segment_type",
                                                    "physical_reads",
                                                    "physical_writes",
                                                    "bytes",
                                                    "interval_seconds",
                                                    "partition_name",
                                                    "snap_id",
                                                    "table_owner",
                                                    "table_name",
                                                    "begin_interval_time",
                                                    "end_interval_time",
                                                    "statistic_name",
                                                    "value"};

constexpr int kUnused = -1;   // recognized, not needed
constexpr int kUnknown = -2;  // not an Oracle column pglayout knows

struct Alias {
  const char* name;
  int column;
};
// The Oracle views' names for the columns (DBA_HIST_SEG_STAT[_OBJ],
// DBA_SEGMENTS, V$SEGMENT_STATISTICS), and names that identify what the
// names above already identify: they count as known when the separator is
// detected.
constexpr Alias kAliases[] = {
    {"object_name", kSegmentName},
    {"object_type", kSegmentType},
    {"subobject_name", kPartitionName},
    {"physical_reads_delta", kPhysicalReads},
    {"physical_writes_delta", kPhysicalWrites},
    {"space_allocated_total", kBytes},
    {"space_used_total", kBytes},
    {"obj#", kUnused},
    {"dataobj#", kUnused},
    {"ts#", kUnused},
    {"dbid", kUnused},
    {"instance_number", kUnused},
    {"con_id", kUnused},
    {"tablespace_name", kUnused},
    {"statistic#", kUnused},
};

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

int ColumnNamed(const std::string& header_text) {
  std::string name = Lower(Trim(header_text));
  for (int c = 0; c < kColumnCount; ++c) {
    if (name == kColumnNames[c]) return c;
  }
  for (const Alias& alias : kAliases) {
    if (name == alias.name) return alias.column;
  }
  return kUnknown;
}

// ------------------------------------------------------------ separator --

constexpr char kSeparators[] = {',', ';', '\t', '|'};

int KnownColumns(std::string_view text, char separator,
                 const std::string& file) {
  CsvReader reader(text, separator, file);
  CsvRow header;
  Status st;
  if (!reader.Next(&header, &st)) return 0;
  return static_cast<int>(std::count_if(
      header.fields.begin(), header.fields.end(),
      [](const CsvField& f) { return ColumnNamed(f.text) != kUnknown; }));
}

// The separator that splits the header into the most known column names;
// ties and headers with none go to the earlier of , ; tab |.
char DetectSeparator(std::string_view text, const std::string& file) {
  char best = ',';
  int most = 0;
  for (char separator : kSeparators) {
    int known = KnownColumns(text, separator, file);
    if (known > most) {
      best = separator;
      most = known;
    }
  }
  return best;
}

// ---------------------------------------------------------------- header --

struct Header {
  std::vector<int> index = std::vector<int>(kColumnCount, -1);  // field
  std::vector<std::string> names = std::vector<std::string>(kColumnCount);
  bool long_form = false;  // statistic_name/value rows (V$SEGMENT_STATISTICS)
  int last_required = 0;   // highest field index every data row must have

  bool Has(int column) const { return index[column] >= 0; }
};

Status AssignColumns(const CsvRow& row, const std::string& file, Header* h) {
  for (size_t i = 0; i < row.fields.size(); ++i) {
    std::string name = Trim(row.fields[i].text);
    int c = ColumnNamed(name);
    if (c < 0) continue;
    if (h->Has(c)) {
      return Status::InvalidInput(fmt::format(
          "{}:{}:{}: columns '{}' and '{}' both give {}; keep one of them",
          file, row.line, row.fields[i].column, h->names[c], name,
          kColumnNames[c]));
    }
    h->index[c] = static_cast<int>(i);
    h->names[c] = name;
  }
  return Status::Ok();
}

// The columns this header's layout needs.
std::vector<int> RequiredColumns(const Header& h) {
  std::vector<int> out = {kOwner, kSegmentName, kSegmentType};
  if (h.long_form) {
    out.insert(out.end(), {kStatisticName, kValue});
  } else {
    out.insert(out.end(), {kPhysicalReads, kPhysicalWrites, kBytes});
  }
  bool times = h.Has(kBeginTime) && h.Has(kEndTime);
  if (h.Has(kIntervalSeconds) || !times) {
    out.push_back(kIntervalSeconds);
  } else {
    out.insert(out.end(), {kBeginTime, kEndTime});
  }
  return out;
}

std::string AliasHint(const std::vector<int>& missing) {
  std::vector<std::string> hints;
  for (int c : missing) {
    std::vector<std::string> names;
    for (const Alias& alias : kAliases) {
      if (alias.column == c) names.push_back(alias.name);
    }
    if (c == kIntervalSeconds) {
      names.push_back("begin_interval_time with end_interval_time");
    }
    if (!names.empty()) {
      hints.push_back(
          fmt::format("{} for {}", fmt::join(names, " or "), kColumnNames[c]));
    }
  }
  if (hints.empty()) return "";
  return fmt::format("; Oracle's names work too: {}", fmt::join(hints, ", "));
}

bool HeaderHas(const CsvRow& row, const std::string& name) {
  return std::any_of(
      row.fields.begin(), row.fields.end(),
      [&](const CsvField& f) { return Lower(Trim(f.text)) == name; });
}

// What the user most likely did wrong, for the missing-columns message.
std::string HeaderHints(const CsvRow& row, const Header& h,
                        const std::vector<int>& missing, char separator) {
  std::string hints = AliasHint(missing);
  for (char other : kSeparators) {
    if (other != separator && row.fields.size() == 1 &&
        row.fields[0].text.find(other) != std::string::npos) {
      hints += fmt::format(
          "; the header is a single column: are fields separated by {}? "
          "(--separator)",
          SeparatorName(other));
      break;
    }
  }
  if (HeaderHas(row, "obj#") && (!h.Has(kOwner) || !h.Has(kSegmentName))) {
    hints +=
        "; DBA_HIST_SEG_STAT names segments by OBJ# only: join "
        "DBA_HIST_SEG_STAT_OBJ for owner, object_name and object_type";
  }
  if (h.long_form && !h.Has(kIntervalSeconds)) {
    hints +=
        "; V$SEGMENT_STATISTICS counts since instance startup: add the "
        "uptime in seconds as interval_seconds";
  }
  return hints;
}

Status MapHeader(const CsvRow& row, const std::string& file, char separator,
                 Header* h) {
  PGLAYOUT_RETURN_IF_ERROR(AssignColumns(row, file, h));
  h->long_form = h->Has(kStatisticName) && h->Has(kValue);
  if (h->long_form && (h->Has(kPhysicalReads) || h->Has(kPhysicalWrites))) {
    return Status::InvalidInput(fmt::format(
        "{}:{}: the header has both statistic_name and value (one row per "
        "statistic, as V$SEGMENT_STATISTICS) and physical reads or writes "
        "columns (one row per segment); keep one layout",
        file, row.line));
  }
  std::vector<int> missing;
  std::vector<std::string> missing_names;
  for (int c : RequiredColumns(*h)) {
    if (h->Has(c)) {
      h->last_required = std::max(h->last_required, h->index[c]);
    } else {
      missing.push_back(c);
      missing_names.push_back(kColumnNames[c]);
    }
  }
  if (missing.empty()) return Status::Ok();
  return Status::InvalidInput(fmt::format(
      "{}:{}: the header lacks column(s) {}; required: owner, segment_name, "
      "segment_type, physical_reads, physical_writes, bytes, "
      "interval_seconds{} (see docs/oracle-import.md)",
      file, row.line, fmt::join(missing_names, ", "),
      HeaderHints(row, *h, missing, separator)));
}

// ------------------------------------------------------------ timestamps --

struct DateTime {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
};

bool ToInt(std::string_view s, int* out) {
  if (s.empty() || s.size() > 4) return false;
  int value = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
  }
  *out = value;
  return true;
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

int MonthNamed(std::string_view name) {
  static constexpr const char* kMonths[] = {"JAN", "FEB", "MAR", "APR",
                                            "MAY", "JUN", "JUL", "AUG",
                                            "SEP", "OCT", "NOV", "DEC"};
  std::string upper = Upper(std::string(name));
  for (int m = 0; m < 12; ++m) {
    if (upper == kMonths[m]) return m + 1;
  }
  return 0;
}

// 2024-03-14, 14-MAR-24, 14-MAR-2024 or 14.03.2024. Two-digit years
// are 1950-2049, as Oracle's RR reads them today.
bool ParseDate(std::string_view s, DateTime* t) {
  std::vector<std::string_view> dash = Split(s, '-');
  std::vector<std::string_view> dot = Split(s, '.');
  bool ok = false;
  if (dash.size() == 3 && dash[0].size() == 4) {
    ok = ToInt(dash[0], &t->year) && ToInt(dash[1], &t->month) &&
         ToInt(dash[2], &t->day);
  } else if (dash.size() == 3 && (dash[2].size() == 2 || dash[2].size() == 4)) {
    t->month = MonthNamed(dash[1]);
    ok = ToInt(dash[0], &t->day) && ToInt(dash[2], &t->year);
    if (dash[2].size() == 2) t->year += t->year < 50 ? 2000 : 1900;
  } else if (dot.size() == 3 && dot[2].size() == 4) {
    ok = ToInt(dot[0], &t->day) && ToInt(dot[1], &t->month) &&
         ToInt(dot[2], &t->year);
  }
  return ok && t->month >= 1 && t->month <= 12 && t->day >= 1 && t->day <= 31;
}

// HH:MI[:SS[.fraction]] or Oracle's HH.MI.SS[.fraction].
bool ParseClock(std::string_view s, DateTime* t) {
  bool colons = s.find(':') != std::string_view::npos;
  std::vector<std::string_view> p = Split(s, colons ? ':' : '.');
  // HH.MI.SS.FF: the seconds keep their fraction.
  if (!colons && p.size() == 4) p[2] = s.substr(p[0].size() + p[1].size() + 2);
  if (p.size() < 2 || p.size() > (colons ? 3u : 4u)) return false;
  if (!ToInt(p[0], &t->hour) || !ToInt(p[1], &t->minute)) return false;
  if (p.size() > 2) {
    std::string second(p[2]);
    char* end = nullptr;
    t->second = std::strtod(second.c_str(), &end);
    if (second.empty() ||
        !std::isdigit(static_cast<unsigned char>(second[0])) || *end != '\0') {
      return false;
    }
  }
  return t->hour <= 23 && t->minute <= 59 && t->second < 61;
}

bool ApplyMeridiem(std::string_view s, DateTime* t) {
  std::string m = Upper(std::string(s));
  if ((m != "AM" && m != "PM") || t->hour < 1 || t->hour > 12) return false;
  t->hour = t->hour % 12 + (m == "PM" ? 12 : 0);
  return true;
}

// Days since 1970-01-01 in the proleptic Gregorian calendar.
int64_t DaysFromCivil(int year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  int64_t era = (year >= 0 ? year : year - 399) / 400;
  int64_t year_of_era = year - era * 400;
  int64_t day_of_year =
      (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// Seconds since 1970-01-01 of a wall-clock time (no time zone): the
// formats are in docs/oracle-import.md.
bool ParseTimestamp(const std::string& text, double* seconds) {
  std::string spaced = text;
  size_t t_at = spaced.find('T');
  if (t_at == 10) spaced[t_at] = ' ';  // ISO 8601's 2024-03-14T10:00:00
  std::vector<std::string_view> words;
  for (std::string_view w : Split(spaced, ' ')) {
    if (!w.empty()) words.push_back(w);
  }
  DateTime t;
  if (words.size() < 2 || words.size() > 3 || !ParseDate(words[0], &t) ||
      !ParseClock(words[1], &t) ||
      (words.size() == 3 && !ApplyMeridiem(words[2], &t))) {
    return false;
  }
  *seconds =
      static_cast<double>(DaysFromCivil(t.year, t.month, t.day)) * 86400 +
      t.hour * 3600 + t.minute * 60 + t.second;
  return true;
}

// ------------------------------------------------------------------ rows --

// One CSV row, checked.
struct SegmentRow {
  std::string owner, segment, type, partition, snap, table_owner, table;
  std::string statistic;  // long form only
  double reads = 0, writes = 0, bytes = 0, seconds = 0;
  double value = 0;  // long form only
};

class RowReader {
 public:
  RowReader(const CsvRow& row, const Header& header, const std::string& file)
      : row_(row), header_(header), file_(file) {}

  Status Read(SegmentRow* out) {
    if (row_.fields.size() <= static_cast<size_t>(header_.last_required)) {
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
    PGLAYOUT_RETURN_IF_ERROR(Counters(out));
    PGLAYOUT_RETURN_IF_ERROR(Interval(out));
    // Without snap_id, the snapshot's begin time tells snapshots apart.
    if (out->snap.empty()) {
      PGLAYOUT_RETURN_IF_ERROR(Text(kBeginTime, false, &out->snap));
    }
    out->type = Upper(out->type);
    return Status::Ok();
  }

 private:
  Status Counters(SegmentRow* out) {
    if (header_.long_form) {
      PGLAYOUT_RETURN_IF_ERROR(Text(kStatisticName, false, &out->statistic));
      PGLAYOUT_RETURN_IF_ERROR(Number(kValue, &out->value));
    } else {
      PGLAYOUT_RETURN_IF_ERROR(Number(kPhysicalReads, &out->reads));
      PGLAYOUT_RETURN_IF_ERROR(Number(kPhysicalWrites, &out->writes));
    }
    return Number(kBytes, &out->bytes);
  }

  Status Interval(SegmentRow* out) {
    if (header_.Has(kIntervalSeconds)) {
      PGLAYOUT_RETURN_IF_ERROR(Number(kIntervalSeconds, &out->seconds));
      if (out->seconds <= 0) {
        return Fail(kIntervalSeconds, "must be more than 0");
      }
      return Status::Ok();
    }
    double begin = 0, end = 0;
    PGLAYOUT_RETURN_IF_ERROR(Time(kBeginTime, &begin));
    PGLAYOUT_RETURN_IF_ERROR(Time(kEndTime, &end));
    if (end <= begin) {
      return Fail(kEndTime, fmt::format("'{}' is not after {} '{}'",
                                        Trim(Field(kEndTime)->text),
                                        header_.names[kBeginTime],
                                        Trim(Field(kBeginTime)->text)));
    }
    // To the millisecond (TIMESTAMP(3)): the doubles' rounding must not
    // turn an hour into 3600.0000002 seconds.
    out->seconds = std::round((end - begin) * 1000) / 1000;
    return Status::Ok();
  }

  const CsvField* Field(int column) const {
    int i = header_.index[column];
    if (i < 0 || static_cast<size_t>(i) >= row_.fields.size()) return nullptr;
    return &row_.fields[i];
  }

  Status Text(int column, bool required, std::string* out) {
    const CsvField* f = Field(column);
    *out = f ? Trim(f->text) : "";
    if (required && out->empty()) return Fail(column, "is empty");
    return Status::Ok();
  }

  // An absent column or an empty field is 0: Oracle prints NULL deltas as
  // empty (no activity recorded).
  Status Number(int column, double* out) {
    const CsvField* f = Field(column);
    std::string text = f ? Trim(f->text) : "";
    *out = 0;
    if (text.empty()) return Status::Ok();
    char* end = nullptr;
    *out = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(*out) ||
        *out < 0) {
      return Fail(column, fmt::format("expected a non-negative number, got "
                                      "'{}'",
                                      text));
    }
    return Status::Ok();
  }

  Status Time(int column, double* out) {
    std::string text = Trim(Field(column)->text);
    if (ParseTimestamp(text, out)) return Status::Ok();
    return Fail(column, fmt::format("expected a time such as 2024-03-14 "
                                    "10:00:00 or 14-MAR-24 10.00.00.000 AM, "
                                    "got '{}'",
                                    text));
  }

  Status Fail(int column, const std::string& what) const {
    const CsvField* f = Field(column);
    return Status::InvalidInput(fmt::format("{}:{}:{}: column '{}' {}", file_,
                                            row_.line, f ? f->column : 1,
                                            header_.names[column], what));
  }

  const CsvRow& row_;
  const Header& header_;
  const std::string& file_;
};

// --------------------------------------------------------------- pivot --

void AddStatistic(const SegmentRow& row, bool bytes_column, SegmentRow* s) {
  s->seconds = std::max(s->seconds, row.seconds);
  if (bytes_column) s->bytes = std::max(s->bytes, row.bytes);
  std::string statistic = Lower(row.statistic);
  if (statistic == "physical reads") {
    s->reads += row.value;
  } else if (statistic == "physical writes") {
    s->writes += row.value;
  } else if (statistic == "space allocated" && !bytes_column) {
    s->bytes = std::max(s->bytes, row.value);
  }
}

// V$SEGMENT_STATISTICS has one row per segment and statistic: one row per
// segment (and snapshot), in the order segments first appear. Counters of
// the same statistic add up (GV$ has one row per RAC instance).
std::vector<SegmentRow> PivotStatistics(const std::vector<SegmentRow>& rows,
                                        bool bytes_column) {
  std::vector<SegmentRow> out;
  std::map<std::string, size_t> where;
  for (const SegmentRow& row : rows) {
    std::string key =
        fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", row.snap, row.owner,
                    row.segment, row.partition, row.type);
    auto [it, added] = where.try_emplace(key, out.size());
    if (added) {
      out.push_back(row);
      out.back().reads = out.back().writes = out.back().bytes = 0;
    }
    AddStatistic(row, bytes_column, &out[it->second]);
  }
  return out;
}

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

  void Add(const SegmentRow& row, SegmentImportSummary* report) {
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

  void Finish(Workload* w, SegmentImportSummary* report) const {
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

// Reads the header and every data row of |text| (already without a BOM).
Status ReadSegmentRows(std::string_view text, char separator,
                       const std::string& file, Header* header,
                       std::vector<SegmentRow>* rows) {
  CsvReader reader(text, separator, file);
  CsvRow row;
  Status st;
  if (!reader.Next(&row, &st)) {
    if (!st.ok()) return st;
    return Status::InvalidInput(file + ": empty file, expected a header");
  }
  PGLAYOUT_RETURN_IF_ERROR(MapHeader(row, file, separator, header));
  while (reader.Next(&row, &st)) {
    SegmentRow segment;
    PGLAYOUT_RETURN_IF_ERROR(RowReader(row, *header, file).Read(&segment));
    rows->push_back(std::move(segment));
  }
  PGLAYOUT_RETURN_IF_ERROR(st);
  if (rows->empty()) {
    return Status::InvalidInput(file + ": no data rows after the header");
  }
  return Status::Ok();
}

Status CheckOptions(const SegmentImportOptions& options) {
  if (options.block_size == 0 || options.block_size % 512 != 0) {
    return Status::InvalidInput(fmt::format(
        "Oracle block size {} is not a multiple of 512", options.block_size));
  }
  if (options.separator != 0 &&
      std::find(std::begin(kSeparators), std::end(kSeparators),
                options.separator) == std::end(kSeparators)) {
    return Status::InvalidInput("the separator must be one of , ; tab |");
  }
  return Status::Ok();
}

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

Status ParseSeparator(const std::string& text, char* separator) {
  std::string name = Lower(text);
  if (name == "," || name == ";" || name == "|") {
    *separator = name[0];
  } else if (name == "tab" || name == "\t" || name == "\\t") {
    *separator = '\t';
  } else {
    return Status::InvalidInput(
        fmt::format("--separator '{}': expected one of , ; | tab", text));
  }
  return Status::Ok();
}

Status ParseSegmentsCsv(std::string_view text, const std::string& source_name,
                        const SegmentImportOptions& options, Workload* workload,
                        SegmentImportSummary* report) {
  PGLAYOUT_RETURN_IF_ERROR(CheckOptions(options));
  PGLAYOUT_RETURN_IF_ERROR(CheckEncoding(text, source_name));
  text = SkipBom(text);
  // Text that is not UTF-8 is taken as Oracle's WE8ISO8859P1 (Latin-1), the
  // common export encoding: every byte maps to one character.
  std::string converted;
  if (!IsValidUtf8(text)) {
    converted = Latin1ToUtf8(text);
    text = converted;
  }
  char separator = options.separator != 0 ? options.separator
                                          : DetectSeparator(text, source_name);
  Header header;
  std::vector<SegmentRow> rows;
  PGLAYOUT_RETURN_IF_ERROR(
      ReadSegmentRows(text, separator, source_name, &header, &rows));
  SegmentImportSummary r;
  r.rows = static_cast<int>(rows.size());
  if (header.long_form) rows = PivotStatistics(rows, header.Has(kBytes));
  Aggregator aggregator(options);
  for (const SegmentRow& row : rows) aggregator.Add(row, &r);
  Workload w;
  w.source = "oracle-segments";
  aggregator.Finish(&w, &r);
  *workload = std::move(w);
  *report = std::move(r);
  return Status::Ok();
}

Status ImportSegmentsFile(const std::string& path,
                          const SegmentImportOptions& options,
                          Workload* workload, SegmentImportSummary* report) {
  std::string text;
  Status st = ReadTextFile(path, &text);
  if (!st.ok()) return st.WithContext("segment statistics");
  return ParseSegmentsCsv(text, path, options, workload, report);
}

}  // namespace pglayout
