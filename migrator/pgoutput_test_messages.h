// pgoutput protocol-1 messages built by hand, for the decoder's and the
// capture reader's tests: big-endian integers, NUL-terminated strings.

#ifndef PGLAYOUT_MIGRATOR_PGOUTPUT_TEST_MESSAGES_H_
#define PGLAYOUT_MIGRATOR_PGOUTPUT_TEST_MESSAGES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace pglayout::migrator::pgoutput_test {

inline std::string Be(uint64_t v, int width) {
  std::string out;
  for (int i = width - 1; i >= 0; --i) {
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  return out;
}

inline std::string Str(const std::string& s) {
  return s + std::string(1, '\0');
}

// Relation |oid| (public.t) with int4 |columns|.
inline std::string Relation(uint32_t oid,
                            const std::vector<std::string>& columns) {
  std::string m =
      "R" + Be(oid, 4) + Str("public") + Str("t") + "d" + Be(columns.size(), 2);
  for (const std::string& c : columns) {
    m += std::string(1, '\1') + Str(c) + Be(23, 4) + Be(0xffffffff, 4);
  }
  return m;
}

// A tuple of |values|: "" for NULL, "\x01" for an unchanged TOAST value.
inline std::string Tuple(const std::vector<std::string>& values) {
  std::string m = Be(values.size(), 2);
  for (const std::string& v : values) {
    if (v.empty()) {
      m += "n";
    } else if (v == "\x01") {
      m += "u";
    } else {
      m += "t" + Be(v.size(), 4) + v;
    }
  }
  return m;
}

inline std::string Insert(uint32_t oid, const std::vector<std::string>& row) {
  return "I" + Be(oid, 4) + "N" + Tuple(row);
}

// A COMMIT whose transaction's WAL ends at |end|.
inline std::string Commit(uint64_t end) {
  return "C" + std::string(1, '\0') + Be(end - 8, 8) + Be(end, 8) + Be(0, 8);
}

}  // namespace pglayout::migrator::pgoutput_test

#endif  // PGLAYOUT_MIGRATOR_PGOUTPUT_TEST_MESSAGES_H_
