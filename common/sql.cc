#include "common/sql.h"

#include <utility>

#include "common/pg_catalog_read.h"
#include "common/text.h"

namespace pglayout {

int SqlResult::ColumnIndex(const std::string& column) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == column) return static_cast<int>(i);
  }
  return -1;
}

Status ExecuteSql(SqlSession* session, const std::string& sql) {
  SqlResult ignored;
  return session->Execute(sql, {}, &ignored);
}

Status QueryValue(SqlSession* session, const std::string& sql,
                  const std::vector<SqlValue>& params, SqlValue* value) {
  SqlResult result;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(sql, params, &result));
  if (result.rows.empty() || result.rows[0].empty()) {
    return Status::NotFound("query returned no rows: " + sql);
  }
  *value = result.rows[0][0];
  return Status::Ok();
}

Status ReadCheckpointCounts(SqlSession* session, CheckpointCounts* counts) {
  CheckpointStatistics statistics;
  PGLAYOUT_RETURN_IF_ERROR(
      ReadCheckpointStatistics(session, /*in_recovery=*/false, &statistics));
  counts->timed = statistics.timed;
  counts->requested = statistics.requested;
  return Status::Ok();
}

CheckpointDelta CheckpointsBetween(const CheckpointCounts& start,
                                   const CheckpointCounts& end,
                                   const std::string& reset_why) {
  CheckpointDelta d;
  d.timed = end.timed - start.timed;
  d.requested = end.requested - start.requested;
  if (reset_why.empty() && d.timed >= 0 && d.requested >= 0) return d;
  d.known = false;
  d.timed = d.requested = 0;
  d.why = reset_why.empty() ? "statistics were reset" : reset_why;
  return d;
}

std::string CountText(const CheckpointDelta& delta, int64_t count) {
  if (!delta.known) return "unknown (" + delta.why + ")";
  return std::to_string(count);
}

Status CheckpointStatsResetSince(SqlSession* session, const std::string& since,
                                 std::string* why, const std::string& until) {
  why->clear();
  if (since.empty()) return Status::Ok();
  CheckpointStatistics statistics;
  PGLAYOUT_RETURN_IF_ERROR(
      ReadCheckpointStatistics(session, /*in_recovery=*/false, &statistics));
  SqlResult r;
  PGLAYOUT_RETURN_IF_ERROR(session->Execute(
      "SELECT pg_catalog.pg_postmaster_start_time() > $1::pg_catalog."
      "timestamptz, coalesce(nullif($2, '')::pg_catalog.timestamptz > "
      "$1::pg_catalog.timestamptz AND (nullif($3, '') IS NULL OR "
      "$2::pg_catalog.timestamptz <= $3::pg_catalog.timestamptz), false)",
      {since, statistics.stats_reset, until}, &r));
  if (r.rows.empty() || r.rows[0].size() < 2) return Status::Ok();
  const bool restarted = r.rows[0][0].value_or("") == "t";
  const bool reset = r.rows[0][1].value_or("") == "t";
  if (!reset) return Status::Ok();
  *why = restarted ? "statistics were reset by a server restart"
                   : "statistics were reset";
  return Status::Ok();
}

std::string TextArrayLiteral(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::vector<SqlValue> ParseArrayLiteral(const std::string& text) {
  std::vector<SqlValue> out;
  if (text.size() < 2 || text.front() != '{') return out;
  size_t i = 1;
  while (i < text.size() && text[i] != '}') {
    std::string item;
    bool quoted = false;
    if (text[i] == '"') {
      quoted = true;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        item += text[i];
      }
      ++i;  // closing quote
    } else {
      for (; i < text.size() && text[i] != ',' && text[i] != '}'; ++i) {
        item += text[i];
      }
    }
    if (!quoted && item == "NULL") {
      out.emplace_back(std::nullopt);
    } else {
      out.emplace_back(item);
    }
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

std::string QuoteIdent(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string DisplayIdent(const std::string& name) {
  auto plain = [](char c, bool first) {
    return (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '$'));
  };
  bool quote = name.empty();
  for (size_t i = 0; i < name.size() && !quote; ++i) {
    quote = !plain(name[i], i == 0);
  }
  // Quoting keeps a newline or an ESC: escaped too (common/text.h).
  return DisplayName(quote ? QuoteIdent(name) : name);
}

std::string DisplayIdentList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += DisplayIdent(n);
  }
  return out;
}

namespace {

// Reads one identifier starting at *pos; stops at an unquoted '.'.
Status ReadIdentPart(const std::string& text, size_t* pos, std::string* out) {
  out->clear();
  size_t i = *pos;
  if (i < text.size() && text[i] == '"') {
    for (++i; i < text.size(); ++i) {
      if (text[i] != '"') {
        *out += text[i];
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        *out += '"';
        ++i;
      } else {
        break;
      }
    }
    if (i >= text.size()) {
      return Status::InvalidInput("unclosed quote in name '" + text + "'");
    }
    ++i;  // the closing quote
  } else {
    for (; i < text.size() && text[i] != '.'; ++i) {
      char c = text[i];
      *out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  if (out->empty()) {
    return Status::InvalidInput("empty part in name '" + text + "'");
  }
  *pos = i;
  return Status::Ok();
}

}  // namespace

Status SplitQualifiedName(const std::string& text, std::string* schema,
                          std::string* name) {
  size_t pos = 0;
  std::string first;
  PGLAYOUT_RETURN_IF_ERROR(ReadIdentPart(text, &pos, &first));
  if (pos == text.size()) {
    schema->clear();
    *name = first;
    return Status::Ok();
  }
  if (text[pos] != '.') {
    return Status::InvalidInput("unexpected text after quoted part in name '" +
                                text + "'");
  }
  ++pos;
  std::string second;
  PGLAYOUT_RETURN_IF_ERROR(ReadIdentPart(text, &pos, &second));
  if (pos != text.size()) {
    return Status::InvalidInput("name '" + text +
                                "' has more than schema.relation");
  }
  *schema = first;
  *name = second;
  return Status::Ok();
}

std::string QuoteQualified(const std::string& qualified_name) {
  std::string schema, name;
  if (!SplitQualifiedName(qualified_name, &schema, &name).ok()) {
    return QuoteIdent(qualified_name);
  }
  if (schema.empty()) return QuoteIdent(name);
  return QuoteIdent(schema) + "." + QuoteIdent(name);
}

std::string QuoteLiteral(const std::string& value) {
  const bool escape = value.find('\\') != std::string::npos;
  std::string out = escape ? " E'" : "'";
  for (char c : value) {
    if (c == '\'' || (escape && c == '\\')) out += c;
    out += c;
  }
  out += '\'';
  return out;
}

std::string SessionHardeningSql(int server_version) {
  std::vector<std::pair<std::string, std::string>> settings = {
      {"search_path", kSessionSearchPath},
      {"standard_conforming_strings", "on"},
      {"escape_string_warning", "off"},
      {"client_encoding", "UTF8"},
      {"DateStyle", "ISO, MDY"},
      {"IntervalStyle", "postgres"},
      {"extra_float_digits", "1"},
      {"bytea_output", "hex"},
      {"row_security", "off"},
      {"statement_timeout", "0"},
      {"lock_timeout", "0"},
      {"idle_in_transaction_session_timeout", "0"}};
  if (server_version >= 140000)
    settings.push_back({"idle_session_timeout", "0"});
  if (server_version >= 170000)
    settings.push_back({"transaction_timeout", "0"});
  std::string sql = "SELECT ";
  for (const auto& [name, value] : settings) {
    sql += "pg_catalog.set_config('" + name + "', '" + value + "', false), ";
  }
  return sql + "pg_catalog.set_config('application_name', $1, false)";
}

}  // namespace pglayout
