// A scripted SqlSession for unit tests: records every statement and answers
// from rules matched by substring, so the executor's transaction and retry
// logic, and the readers of result rows, are tested without a server.

#ifndef PGLAYOUT_TESTING_FAKE_SQL_SESSION_H_
#define PGLAYOUT_TESTING_FAKE_SQL_SESSION_H_

#include <string>
#include <vector>

#include "pg/sql.h"

namespace pglayout {

class FakeSqlSession : public SqlSession {
 public:
  struct Rule {
    std::string contains;  // matches statements containing this text
    SqlResult result;
    std::string sqlstate;  // non-empty: fail with this SQLSTATE
    int times = -1;        // how often it applies; -1 = always
  };

  // The first matching rule with times != 0 wins; unmatched statements
  // succeed with an empty result.
  void On(Rule rule) { rules_.push_back(std::move(rule)); }
  void Fail(const std::string& contains, const std::string& sqlstate,
            int times) {
    On({contains, {}, sqlstate, times});
  }

  Status Execute(const std::string& sql, const std::vector<SqlValue>& params,
                 SqlResult* result) override {
    statements.push_back(sql);
    last_params = params;
    last_sqlstate_.clear();
    for (Rule& r : rules_) {
      if (r.times == 0 || sql.find(r.contains) == std::string::npos) continue;
      if (r.times > 0) --r.times;
      if (!r.sqlstate.empty()) {
        last_sqlstate_ = r.sqlstate;
        return Status::SqlError("fake error (SQLSTATE " + r.sqlstate + ")");
      }
      *result = r.result;
      return Status::Ok();
    }
    *result = SqlResult();
    return Status::Ok();
  }
  std::string last_sqlstate() const override { return last_sqlstate_; }
  int server_version() const override { return version; }
  std::string Describe() const override { return "fake"; }

  int Count(const std::string& contains) const {
    int n = 0;
    for (const std::string& s : statements) {
      if (s.find(contains) != std::string::npos) ++n;
    }
    return n;
  }

  std::vector<std::string> statements;
  std::vector<SqlValue> last_params;
  int version = 150000;

 private:
  std::vector<Rule> rules_;
  std::string last_sqlstate_;
};

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_FAKE_SQL_SESSION_H_
