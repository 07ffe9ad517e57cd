// Bounded fuzz loops over the readers of user files in observe/: the server
// log parser and the Oracle segment CSV reader. Real inputs from
// observe/testdata are mutated (byte flips, truncation, lines duplicated,
// dropped or swapped, overlong lines, NUL bytes, invalid UTF-8, huge and
// non-finite numbers) with a fixed seed and a fixed count; every result
// must be OK or an InvalidInput that names the input, and no exception may
// escape. A failure prints the iteration, so it can be replayed.

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/model.h"
#include "observe/log_parser.h"
#include "observe/oracle_segments.h"

namespace pglayout {
namespace {

constexpr uint64_t kSeed = 39;

std::string Load(const std::string& path) {
  std::string text;
  Status st = ReadTextFile(path, &text);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return text;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start + 1));
    start = nl + 1;
  }
  return lines;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l;
  return text;
}

// Text that breaks readers: numbers they may overflow on, words they look
// for, bytes that are not text.
const std::vector<std::string>& Fragments() {
  static const std::vector<std::string> kFragments = {
      "1e999",
      "-1e999",
      "nan",
      "inf",
      "99999999999999999999999999",
      "-9223372036854775809",
      "1e-320",
      "0",
      "-1",
      std::string("\0", 1),
      "\xff\xfe",
      "\xc3(",
      "\xed\xa0\x80",
      "\"",
      "\"\"",
      ",",
      ";",
      "|",
      "\t",
      "\r",
      "\n",
      "{",
      "[{",
      "}",
      "LOG:  ",
      "checkpoint starting: ",
      "checkpoint complete: wrote ",
      "restartpoint complete: ",
      "checkpoints are occurring too frequently (",
      "total=",
      "distance=",
      "9999-12-31 23:59:59.999 UTC ",
      "0000-00-00 00:00:00 ",
      "Dec 31 23:59:59 ",
      "\"timestamp\":1e308,",
      "{\"seconds\":-1e300,\"nanos\":1e300}",
      "\x1f\x8b",
      "BZh9",
  };
  return kFragments;
}

// Applies one to four mutations to |text|.
std::string Mutate(const std::string& seed, std::mt19937_64& rng) {
  std::string text = seed;
  auto pick = [&](size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  int mutations = 1 + static_cast<int>(pick(4));
  for (int m = 0; m < mutations; ++m) {
    std::vector<std::string> lines = Lines(text);
    switch (pick(10)) {
      case 0:  // flip bits of a few bytes
        for (int i = 0; i < 4 && !text.empty(); ++i) {
          text[pick(text.size())] ^= static_cast<char>(1 << pick(8));
        }
        break;
      case 1:  // truncate
        text.resize(pick(text.size() + 1));
        break;
      case 2:  // duplicate a line, many times
        if (!lines.empty()) {
          size_t at = pick(lines.size());
          std::vector<std::string> copies(1 + pick(50), lines[at]);
          lines.insert(lines.begin() + static_cast<long>(at), copies.begin(),
                       copies.end());
          text = Join(lines);
        }
        break;
      case 3:  // swap two lines
        if (lines.size() > 1) {
          std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
          text = Join(lines);
        }
        break;
      case 4:  // drop a line
        if (!lines.empty()) {
          lines.erase(lines.begin() + static_cast<long>(pick(lines.size())));
          text = Join(lines);
        }
        break;
      case 5:  // an overlong line (longer than the log reader keeps)
        text.insert(pick(text.size() + 1),
                    std::string((1 << 20) + pick(1 << 12), "x,\"9"[pick(4)]));
        break;
      case 6:  // reverse the lines (an export, newest first)
        std::reverse(lines.begin(), lines.end());
        text = Join(lines);
        break;
      default: {  // a fragment in place of, or beside, some bytes
        const std::string& f = Fragments()[pick(Fragments().size())];
        size_t at = pick(text.size() + 1);
        size_t cut = pick(2) == 0 ? 0 : std::min(pick(8), text.size() - at);
        text.replace(at, cut, f);
        break;
      }
    }
  }
  return text;
}

std::string Gzip(const std::string& text) {
  uLongf size = compressBound(static_cast<uLong>(text.size())) + 32;
  std::string out(size, '\0');
  z_stream z{};
  deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// OK, or an InvalidInput naming one of |names|.
void ExpectOkOrNamedInvalidInput(const Status& st,
                                 const std::vector<std::string>& names,
                                 int iteration) {
  if (st.ok()) return;
  EXPECT_TRUE(st.IsInvalidInput())
      << "iteration " << iteration << ": " << st.ToString();
  bool named = std::any_of(names.begin(), names.end(), [&](const auto& n) {
    return st.message().find(n) != std::string::npos;
  });
  EXPECT_TRUE(named) << "iteration " << iteration << ": " << st.message();
}

TEST(InputFuzz, LogParserTakesMutatedLogs) {
  const std::vector<std::string> seeds = {
      Load("observe/testdata/checkpoints_pg15.log"),
      Load("observe/testdata/checkpoints_pg18.log"),
      Load("observe/testdata/server_logs/rotated/postgresql.log"),
      Load("observe/testdata/server_logs/rotated/postgresql.log.1"),
      Load("observe/testdata/server_logs/formats/syslog"),
      Load("observe/testdata/server_logs/formats/cloudsql-export.jsonl"),
      Load("observe/testdata/server_logs/formats/cloudsql-gcloud.json"),
      Load("observe/testdata/server_logs/formats/cnpg-newest-first.jsonl"),
      Load("observe/testdata/server_logs/formats/"
           "postgresql-2024-03-01_115958.csv"),
  };
  std::mt19937_64 rng(kSeed);
  constexpr int kInputs = 1000;
  int ok = 0;
  for (int i = 0; i < kInputs; ++i) {
    std::string text = Mutate(seeds[i % seeds.size()], rng);
    std::vector<NamedLog> logs = {{"fuzz.log", text}};
    if (i % 5 == 0) logs.push_back({"fuzz.log.gz", Gzip(text)});
    if (i % 7 == 0) {
      // Broken compressed data, too.
      std::string gz = Gzip(Mutate(seeds[(i + 1) % seeds.size()], rng));
      if (gz.size() > 20)
        gz[10 + static_cast<size_t>(i) % (gz.size() - 20)] ^= 0x55;
      logs.push_back({"broken.gz", gz});
    }
    CheckpointLogSummary report;
    try {
      Status st = ParseCheckpointLogs(logs, &report);
      std::vector<std::string> names;
      for (const NamedLog& log : logs) names.push_back(log.name);
      ExpectOkOrNamedInvalidInput(st, names, i);
      if (st.ok()) {
        ++ok;
        EXPECT_GE(report.Timed(), 0);
        EXPECT_GE(report.Requested(), 0);
        EXPECT_GE(report.Span(), 0) << "iteration " << i;
        Workload w = LogSummaryToWorkload(report);
        EXPECT_TRUE(std::isfinite(w.duration)) << "iteration " << i;
        EXPECT_TRUE(std::isfinite(w.checkpoints.write_time_ms))
            << "iteration " << i;
        if (w.wal_bytes_per_second) {
          EXPECT_TRUE(std::isfinite(*w.wal_bytes_per_second))
              << "iteration " << i;
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "iteration " << i << ": exception " << e.what();
    } catch (...) {
      ADD_FAILURE() << "iteration " << i << ": unknown exception";
    }
  }
  EXPECT_GT(ok, kInputs / 10) << "the mutations leave some logs readable";
}

TEST(InputFuzz, SegmentsCsvReaderTakesMutatedExports) {
  const std::vector<std::string> seeds = {
      Load("observe/testdata/oracle_segments.csv"),
      Load("observe/testdata/awr_sqlplus.csv"),
      Load("observe/testdata/awr_excel_semicolon.csv"),
      Load("observe/testdata/vsegstat_long.csv"),
  };
  std::mt19937_64 rng(kSeed);
  constexpr int kInputs = 1000;
  int ok = 0;
  for (int i = 0; i < kInputs; ++i) {
    std::string text = Mutate(seeds[i % seeds.size()], rng);
    SegmentImportOptions options;
    Workload w;
    SegmentImportSummary report;
    try {
      Status st = ParseSegmentsCsv(text, "fuzz.csv", options, &w, &report);
      ExpectOkOrNamedInvalidInput(st, {"fuzz.csv"}, i);
      if (st.ok()) {
        ++ok;
        for (const Relation& r : w.relations) {
          EXPECT_TRUE(std::isfinite(r.read_iops) && r.read_iops >= 0)
              << "iteration " << i << ": " << r.name << " " << r.read_iops;
          EXPECT_TRUE(std::isfinite(r.write_iops) && r.write_iops >= 0)
              << "iteration " << i << ": " << r.name << " " << r.write_iops;
        }
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "iteration " << i << ": exception " << e.what();
    } catch (...) {
      ADD_FAILURE() << "iteration " << i << ": unknown exception";
    }
  }
  EXPECT_GT(ok, kInputs / 10) << "the mutations leave some exports readable";
}

}  // namespace
}  // namespace pglayout
