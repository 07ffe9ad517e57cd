#include "migrator/online_context.h"

#include <algorithm>

#include "migrator/sql_util.h"

namespace pglayout::migrator {
namespace {

// Rows per heap block assumed for a table never vacuumed or analyzed (its
// reltuples, -1 on 14+ and 0 before, is read as 0).
constexpr double kRowsPerBlockGuess = 50;

}  // namespace

// The WAL writer flushes the commit within moments, and should the server
// crash first, the work and its journal row are lost together and the
// resumed run does them again. Saves a WAL flush wait per batch behind the
// foreground's commits.
Status BulkTransaction(Executor* ex, const std::string& name,
                       const std::function<Status()>& body) {
  return ex->Transaction(name, [&]() -> Status {
    PGLAYOUT_RETURN_IF_ERROR(ex->Exec("SET LOCAL synchronous_commit = off"));
    return body();
  });
}

Status ShadowIndexExists(const OnlineContext& c, const std::string& name,
                         bool* exists) {
  SqlValue v;
  PGLAYOUT_RETURN_IF_ERROR(QueryValue(
      c.ex->session(), "SELECT pg_catalog.to_regclass($1) IS NOT NULL",
      {QuoteIdent(c.names.schema) + "." + QuoteIdent(name)}, &v));
  *exists = v && *v == "t";
  return Status::Ok();
}

double EstimatedRows(const TableFacts& t) {
  if (t.reltuples > 0) return t.reltuples;
  return static_cast<double>(t.heap_size) / 8192.0 * kRowsPerBlockGuess;
}

int64_t BlocksHolding(const TableFacts& t, int64_t rows, int64_t blocks) {
  double rows_per_block = t.reltuples > 0 && blocks > 0
                              ? t.reltuples / static_cast<double>(blocks)
                              : kRowsPerBlockGuess;
  return std::max<int64_t>(1,
                           static_cast<int64_t>(static_cast<double>(rows) /
                                                std::max(rows_per_block, 1.0)));
}

}  // namespace pglayout::migrator
