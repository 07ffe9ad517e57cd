// Quoting names and values for the SQL text pglayout writes (plan.sql, the
// migrator's statements) and for its messages. Pure text: no session, no
// library; values a statement sends travel as bound parameters instead
// (pg/sql.h).

#ifndef PGLAYOUT_COMMON_QUOTE_H_
#define PGLAYOUT_COMMON_QUOTE_H_

#include <string>
#include <vector>

#include "common/status.h"

namespace pglayout {

// "My Table" -> "\"My Table\"": a quoted identifier, always.
std::string QuoteIdent(const std::string& name);
// For messages: |name| as a person would type it, quoted only when it is
// not a plain lowercase identifier ([a-z_][a-z0-9_$]*), so that a name such
// as `,")` cannot be misread: "id", "Order", ","")"; control characters
// escaped (DisplayName), so that a message stays one line.
std::string DisplayIdent(const std::string& name);
// Each name through DisplayIdent, joined by ", ".
std::string DisplayIdentList(const std::vector<std::string>& names);
// Relation names in pglayout's files are written as PostgreSQL prints a
// regclass: public.orders, public."My Table", "Sales"."Q1.data". Unquoted
// parts fold to lower case, quoted parts keep case and "" stands for ".
// Splits such a name into schema ("" when absent) and relation. Returns
// InvalidInput for an empty part, an unclosed quote or more than two parts.
Status SplitQualifiedName(const std::string& text, std::string* schema,
                          std::string* name);
// The quoted SQL spelling of such a name: "public"."My Table". Input that
// does not parse is quoted whole, so it can never inject SQL.
std::string QuoteQualified(const std::string& qualified_name);
// 'it''s': a quoted literal, for the rare statements that take no
// parameters (CREATE TABLESPACE ... LOCATION). As libpq's PQescapeLiteral:
// a value with a backslash is written E'...' with backslashes doubled too,
// so the literal means the same whatever standard_conforming_strings is.
std::string QuoteLiteral(const std::string& value);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_QUOTE_H_
