// Writes TOML for people: keys in the order the caller gives (toml++'s own
// writer sorts them), comments, and sizes with units. Deterministic: the
// same calls give the same bytes.
//
// Internal to common/; the public API is files.h.

#ifndef PGLAYOUT_COMMON_TOML_WRITER_H_
#define PGLAYOUT_COMMON_TOML_WRITER_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pglayout::internal {

class TomlWriter {
 public:
  void Comment(std::string_view text);  // "# text", one line per '\n'
  void Blank();
  void Table(std::string_view header);       // [header]
  void ArrayTable(std::string_view header);  // [[header]]

  void String(std::string_view key, std::string_view value);
  void Number(std::string_view key, double value);
  void Integer(std::string_view key, int64_t value);
  void Bool(std::string_view key, bool value);
  void Size(std::string_view key, uint64_t bytes);  // "600GiB"
  // A measured size, to three significant figures (FormatMeasuredSize).
  void MeasuredSize(std::string_view key, uint64_t bytes);
  // A measured figure, to |digits| significant figures: what the
  // measurement leaves meaningful (68747.0752 -> 68750 at 4). A latency
  // percentile comes from a histogram bucket within 0.78% of the value: 3.
  void Measured(std::string_view key, double value, int digits = 4);
  void Duration(std::string_view key, double seconds);  // "5min"
  void StringList(std::string_view key, const std::vector<std::string>& list);
  void StringListList(std::string_view key,
                      const std::vector<std::vector<std::string>>& lists);
  void StringMapEntries(const std::map<std::string, std::string>& map);

  // The same, skipping zero and empty values: optional fields stay out of
  // the file unless they carry something.
  void StringIfSet(std::string_view key, std::string_view value);
  void NumberIfSet(std::string_view key, double value);
  void MeasuredIfSet(std::string_view key, double value, int digits = 4);
  void SizeIfSet(std::string_view key, uint64_t bytes);
  void StringListIfSet(std::string_view key,
                       const std::vector<std::string>& list);

  const std::string& str() const { return out_; }

 private:
  void Key(std::string_view key);
  void EnsureBlankLine();
  std::string out_;
  bool after_comment_ = false;
};

// A TOML basic string with escapes: "a \"b\"", controls and DEL as \u001B.
std::string TomlQuote(std::string_view value);
// A bare key when possible, otherwise a quoted one.
std::string TomlKey(std::string_view key);
// Shortest text that reads back to the same double; integers without ".0".
std::string TomlNumber(double value);
// |value| rounded to |digits| significant figures.
double RoundToSignificant(double value, int digits);

}  // namespace pglayout::internal

#endif  // PGLAYOUT_COMMON_TOML_WRITER_H_
