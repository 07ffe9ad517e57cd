#include "migrator/online_detail.h"

#include <sstream>

#include "migrator/online_sql.h"
#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

constexpr char kCopyByBlocks[] = "copy=blocks";

}  // namespace

// Lines: structure hash, schema, table, kCopyByBlocks when the copy goes by
// heap block ranges, the source's filenode when the shadow was made, the
// block-range copy's xmin threshold (CopyTidRangeSql), and the foreign keys
// that were NOT VALID then (a text[] literal). A run started by an older
// version has no fourth line and resumes in key order, nor a fifth, nor a
// sixth: its log has no key index and every row is looked up by anti join;
// nor a seventh: it validates every key after the swap.
std::string MakeDetail(const TableFacts& t, bool by_blocks,
                       const std::string& filenode,
                       const std::string& copy_xmin) {
  return t.structure_hash + "\n" + t.schema + "\n" + t.name + "\n" +
         (by_blocks ? kCopyByBlocks : "") + "\n" + filenode + "\n" + copy_xmin +
         "\n" + TextArrayLiteral(NotValidForeignKeys(t));
}

Detail ParseDetail(const std::string& text) {
  Detail d;
  std::istringstream in(text);
  std::getline(in, d.hash);
  std::getline(in, d.schema);
  std::getline(in, d.table);
  std::string mode;
  std::getline(in, mode);
  d.by_blocks = mode == kCopyByBlocks;
  std::getline(in, d.filenode);
  std::getline(in, d.copy_xmin);
  std::string fks;
  std::getline(in, fks);
  for (const SqlValue& fk : ParseArrayLiteral(fks)) {
    if (fk) d.not_valid_fks.insert(*fk);
  }
  return d;
}

}  // namespace pglayout::migrator
