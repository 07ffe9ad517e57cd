// Reading pglayout's TOML files into the model: types, units, ranges, and
// unknown keys, each error naming file:line:column and the key.
//
// Internal to common/ (it includes toml++); the public API is files.h.

#ifndef PGLAYOUT_COMMON_TOML_READER_H_
#define PGLAYOUT_COMMON_TOML_READER_H_

#include <toml++/toml.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/input_limits.h"
#include "common/model.h"
#include "common/status.h"

namespace pglayout::internal {

// Parses |text|; syntax errors become InvalidInput "file:line:col: ...".
Status ParseToml(std::string_view text, const std::string& file,
                 toml::table* out);

// The readers behind files.h's Parse* functions, on a parsed TOML document
// (so that a caller that must look at the document first parses it once).
Status VolumesFromToml(const toml::table& root, const std::string& source_name,
                       VolumeSet* out);
Status WorkloadFromToml(const toml::table& root, const std::string& source_name,
                        Workload* out);
Status PlanFromToml(const toml::table& root, const std::string& source_name,
                    Plan* out);

// "file:line:col" of a node or key.
std::string Position(const std::string& file, const toml::source_region& where);

// The ranges every field is read within unless its reader states a
// narrower one: common/input_limits.h (kMaxFigure, kMaxSize, kMaxDuration).
// Keys at least this long get no "did you mean" (the edit distance is
// quadratic) and are cut to it in messages.
inline constexpr size_t kMaxKeyShown = 64;

// Reads the keys of one TOML table. Each accessor marks its key as known;
// after the first error later calls do nothing, so a caller reads every key
// and checks Finish() once. Finish() reports the first error, or else the
// first key that no accessor asked for, with the nearest known key.
class KeyReader {
 public:
  // |context| names the table for messages: "[host]", "[[volume]] 'data1'".
  KeyReader(const toml::table& table, const std::string& file,
            std::string context);

  enum Need { kOptional, kRequired };

  void String(std::string_view key, std::string* out, Need need = kOptional);
  // "600GB", "512KiB" or a plain integer (bytes), at most kMaxSize.
  void Size(std::string_view key, uint64_t* out, Need need = kOptional);
  // "5min", "300s" or a plain number (seconds), at most kMaxDuration.
  void Duration(std::string_view key, double* out, Need need = kOptional);
  // An integer or float in [|min|, kMaxFigure]: finite, and 0 or normal
  // (a subnormal such as 1e-320 is refused: its reciprocal is infinite).
  void Number(std::string_view key, double* out, double min = 0,
              Need need = kOptional);
  // The same in [|min|, |max|], for a field whose range is narrower.
  void NumberIn(std::string_view key, double* out, double min, double max,
                Need need = kOptional);
  void Integer(std::string_view key, int64_t* out, int64_t min, int64_t max,
               Need need = kOptional);
  void Int(std::string_view key, int* out, int min, int max,
           Need need = kOptional);
  void Bool(std::string_view key, bool* out);
  void StringList(std::string_view key, std::vector<std::string>* out);
  void StringListList(std::string_view key,
                      std::vector<std::vector<std::string>>* out);
  // A sub-table of scalars, each converted to its text ("1GB", "0.9", "on").
  void StringMap(std::string_view key, std::map<std::string, std::string>* out);
  // [[key]]: the element tables (empty if absent).
  std::vector<const toml::table*> Tables(std::string_view key);
  // [key]: the sub-table, or nullptr if absent.
  const toml::table* Table(std::string_view key);

  // Records a semantic error at |key| (or at the table if |key| is absent).
  void Fail(std::string_view key, const std::string& message);
  bool failed() const { return !status_.ok(); }

  Status Finish();

 private:
  const toml::node* Find(std::string_view key, Need need);
  void FailAt(const toml::source_region& where, std::string_view key,
              const std::string& message);
  void BoundedNumber(const toml::node& node, std::string_view key, double min,
                     double max, double* out);

  const toml::table& table_;
  const std::string& file_;
  std::string context_;
  std::vector<std::string_view> known_;
  Status status_;
};

// The text of a scalar node as postgresql.conf would accept it, or false if
// the node is not a scalar.
bool ScalarToString(const toml::node& node, std::string* out);

}  // namespace pglayout::internal

#endif  // PGLAYOUT_COMMON_TOML_READER_H_
