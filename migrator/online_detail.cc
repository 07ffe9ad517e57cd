#include "migrator/online_detail.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "migrator/online_sql.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

constexpr char kCopyByBlocks[] = "copy=blocks";
// The last line of a detail whose items are escaped (EscapeItem); a detail
// without it is an older run's, one raw item a line. Last, so that the
// items keep their line numbers for readers that only look (the report).
constexpr char kEscapedFormat[] = "detail=escaped";

// One item on one line: backslash, newline and carriage return as \\, \n
// and \r, so that a name holding a newline cannot split into two items.
std::string EscapeItem(const std::string& item) {
  std::string out;
  for (char c : item) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out;
}

std::string UnescapeItem(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\' || i + 1 == line.size()) {
      out += line[i];
      continue;
    }
    char next = line[++i];
    out += next == 'n' ? '\n' : next == 'r' ? '\r' : next;
  }
  return out;
}

}  // namespace

// Lines, each item escaped: structure hash, schema, table, kCopyByBlocks
// when the copy goes by heap block ranges, the source's filenode when the
// shadow was made, the block-range copy's xmin threshold (CopyTidRangeSql),
// the foreign keys that were NOT VALID then (a text[] literal), the
// capture's replication slot ("" for the trigger), and kEscapedFormat. A run
// started by an older version has no format line and its items raw; nor a
// fourth line: it resumes in key order, nor a fifth, nor a sixth: its log has
// no key index and every row is looked up by anti join; nor a seventh: it
// validates every key after the swap; nor an eighth: it captures by trigger.
std::string MakeDetail(const TableFacts& t, bool by_blocks,
                       const std::string& filenode,
                       const std::string& copy_xmin,
                       const std::string& capture_slot) {
  std::string out;
  for (const std::string& item :
       {t.structure_hash, t.schema, t.name,
        std::string(by_blocks ? kCopyByBlocks : ""), filenode, copy_xmin,
        TextArrayLiteral(NotValidForeignKeys(t)), capture_slot}) {
    out += EscapeItem(item) + "\n";
  }
  return out + kEscapedFormat;
}

Detail ParseDetail(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> items;
  for (std::string line; std::getline(in, line);) items.push_back(line);
  if ((items.size() == 8 || items.size() == 9) &&
      items.back() == kEscapedFormat) {
    items.pop_back();
    for (std::string& item : items) item = UnescapeItem(item);
  }
  items.resize(std::max<size_t>(items.size(), 8));
  Detail d;
  d.hash = items[0];
  d.schema = items[1];
  d.table = items[2];
  d.by_blocks = items[3] == kCopyByBlocks;
  d.filenode = items[4];
  d.copy_xmin = items[5];
  for (const SqlValue& fk : ParseArrayLiteral(items[6])) {
    if (fk) d.not_valid_fks.insert(*fk);
  }
  d.capture_slot = items[7];
  return d;
}

}  // namespace pglayout::migrator
