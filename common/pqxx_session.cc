// The one file that includes libpqxx. Every libpqxx exception is caught here
// and turned into a Status. The catch list ends with std::exception because
// in libpqxx 6.4 several errors are not pqxx::failure: usage_error is a
// std::logic_error, conversion_error a std::domain_error, and range_error
// and unexpected_rows (exec0/exec1 given the wrong number of rows) are
// std::out_of_range.

#include <fmt/format.h>

#include <pqxx/pqxx>
#include <string>

#include "common/sql.h"

namespace pglayout {
namespace {

std::string ServerDescription(pqxx::connection& conn) {
  const char* host = conn.hostname();
  const char* port = conn.port();
  const char* db = conn.dbname();
  const char* user = conn.username();
  return fmt::format("{}:{}/{} as {}", host ? host : "(socket)",
                     port ? port : "", db ? db : "", user ? user : "");
}

// libpq's own text names the host and port but never the password. Strip
// the trailing newline libpq adds.
std::string CleanLibpqMessage(std::string msg) {
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) {
    msg.pop_back();
  }
  return msg;
}

// The SQLSTATE of a libpqxx exception. libpqxx 6.4 throws a few errors
// without it (transaction rollbacks such as deadlocks and serialization
// failures, which are not even sql_errors, and 42501), so those are told
// by their type; the most derived types come first.
std::string SqlStateOf(const std::exception& e) {
  if (auto* sql = dynamic_cast<const pqxx::sql_error*>(&e);
      sql != nullptr && !sql->sqlstate().empty()) {
    return sql->sqlstate();
  }
  if (dynamic_cast<const pqxx::deadlock_detected*>(&e)) return "40P01";
  if (dynamic_cast<const pqxx::serialization_failure*>(&e)) return "40001";
  if (dynamic_cast<const pqxx::statement_completion_unknown*>(&e)) {
    return "40003";
  }
  if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) return "40000";
  if (dynamic_cast<const pqxx::insufficient_privilege*>(&e)) return "42501";
  if (dynamic_cast<const pqxx::too_many_connections*>(&e)) return "53300";
  return "";
}

class PqxxSession : public SqlSession {
 public:
  explicit PqxxSession(std::unique_ptr<pqxx::connection> conn)
      : conn_(std::move(conn)), description_(ServerDescription(*conn_)) {}

  Status Execute(const std::string& sql, const std::vector<SqlValue>& params,
                 SqlResult* result) override {
    last_sqlstate_.clear();
    try {
      pqxx::nontransaction tx(*conn_);
      pqxx::result r = ExecParams(tx, sql, params);
      Convert(r, result);
      return Status::Ok();
    } catch (const pqxx::broken_connection& e) {
      last_sqlstate_ = SqlStateOf(e);
      if (last_sqlstate_.empty()) last_sqlstate_ = "08006";
      return Status::Unavailable(fmt::format("lost connection to {}: {}",
                                             description_,
                                             CleanLibpqMessage(e.what())));
    } catch (const std::exception& e) {
      last_sqlstate_ = SqlStateOf(e);
      std::string message = CleanLibpqMessage(e.what());
      if (!last_sqlstate_.empty()) {
        message += fmt::format(" (SQLSTATE {})", last_sqlstate_);
      }
      return Status::SqlError(message);
    }
  }

  std::string last_sqlstate() const override { return last_sqlstate_; }
  int server_version() const override { return conn_->server_version(); }
  std::string Describe() const override { return description_; }

 private:
  static pqxx::result ExecParams(pqxx::transaction_base& tx,
                                 const std::string& sql,
                                 const std::vector<SqlValue>& params) {
    if (params.empty()) return tx.exec(sql);
    // libpqxx 6.4 has no runtime parameter list in its public API; a
    // prepared statement takes a dynamic_params range instead.
    std::vector<const char*> raw;
    raw.reserve(params.size());
    for (const SqlValue& p : params) raw.push_back(p ? p->c_str() : nullptr);
    return tx.exec_params(sql, pqxx::prepare::make_dynamic_params(raw));
  }

  static void Convert(const pqxx::result& r, SqlResult* out) {
    out->columns.clear();
    out->rows.clear();
    out->affected_rows = r.affected_rows();
    for (pqxx::row::size_type c = 0; c < r.columns(); ++c) {
      out->columns.emplace_back(r.column_name(c));
    }
    out->rows.reserve(r.size());
    for (const pqxx::row& row : r) {
      std::vector<SqlValue> values;
      values.reserve(row.size());
      for (const pqxx::field& f : row) {
        if (f.is_null()) {
          values.emplace_back(std::nullopt);
        } else {
          values.emplace_back(std::string(f.c_str(), f.size()));
        }
      }
      out->rows.push_back(std::move(values));
    }
  }

  std::unique_ptr<pqxx::connection> conn_;
  std::string description_;
  std::string last_sqlstate_;
};

}  // namespace

Status OpenPgSession(const std::string& conninfo,
                     const std::string& application_name,
                     std::unique_ptr<SqlSession>* session) {
  try {
    auto conn = std::make_unique<pqxx::connection>(conninfo);
    auto s = std::make_unique<PqxxSession>(std::move(conn));
    Status st = ExecuteSql(
        s.get(), "SET application_name = " + QuoteLiteral(application_name));
    if (!st.ok()) return st;
    *session = std::move(s);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::Unavailable("cannot connect to PostgreSQL: " +
                               CleanLibpqMessage(e.what()));
  }
}

}  // namespace pglayout
