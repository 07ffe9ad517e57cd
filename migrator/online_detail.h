// The online step's detail (pglayout.step.detail): what a resumed run must
// know of how the copy started, fixed when the shadow is made, one item a
// line, escaped so that a name with a newline stays one item. A run started
// by an older version has raw items, fewer lines, and resumes the way that
// version worked (online_detail.cc says line by line).

#ifndef PGLAYOUT_MIGRATOR_ONLINE_DETAIL_H_
#define PGLAYOUT_MIGRATOR_ONLINE_DETAIL_H_

#include <set>
#include <string>

#include "migrator/facts.h"

namespace pglayout::migrator {

struct Detail {
  std::string hash, schema, table;  // structure hash, the table's names
  bool by_blocks = false;           // the copy reads heap block ranges
  std::string filenode;             // the source's; "" = not recorded
  std::string copy_xmin;            // CopyTidRangeSql's $3; "" = not recorded
  // ForeignKeyKey()s of the keys that were NOT VALID when the shadow was
  // made: they stay so after the swap (empty for older runs).
  std::set<std::string> not_valid_fks;
  // The replication slot that captures the changes; "" = the trigger.
  std::string capture_slot;
};

// The detail text of table |t|.
std::string MakeDetail(const TableFacts& t, bool by_blocks,
                       const std::string& filenode = "",
                       const std::string& copy_xmin = "",
                       const std::string& capture_slot = "");

// Reads MakeDetail's text; missing lines stay empty.
Detail ParseDetail(const std::string& text);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_DETAIL_H_
