// A bounded fuzz loop over the TOML readers and the writers: the example
// files of examples/, mutated by a fixed seed a fixed number of times, are
// read as volumes, workload, plan, catalog and pipeline files. Each result
// is OK or InvalidInput naming file:line; nothing throws, crashes or hangs.
// What reads OK is written back (TOML and JSON) and must read OK again.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/json.h"
#include "common/volume_catalog.h"

namespace pglayout {
namespace {

constexpr int kInputs = 10000;
constexpr uint64_t kSeed = 39;
const std::string kName = "fuzz.toml";

std::vector<std::string> Examples() {
  std::vector<std::string> texts;
  for (const char* path :
       {"examples/checkpoints/volumes.toml",
        "examples/checkpoints/workload.toml", "examples/checkpoints/plan.toml",
        "examples/oracle_cloud/volumes.toml",
        "examples/oracle_cloud/workload.toml",
        "examples/oracle_cloud/plan.toml", "examples/scale_out/volumes.toml",
        "examples/scale_out/workload.toml", "examples/scale_out/plan.toml",
        "examples/striped_nvme_backup/volumes.toml",
        "examples/striped_nvme_backup/workload.toml",
        "examples/striped_nvme_backup/plan.toml",
        "examples/catalog/cloud_volumes.toml"}) {
    std::string text;
    EXPECT_TRUE(ReadTextFile(path, &text).ok()) << path;
    texts.push_back(text);
  }
  return texts;
}

// Values that broke readers or the stages after them (issue 39).
const std::array<const char*, 22> kValues = {"1e-320",
                                             "4.9e-324",
                                             "1.7976931348623157e308",
                                             "-1.7976931348623157e308",
                                             "1e308",
                                             "nan",
                                             "inf",
                                             "-inf",
                                             "-0.0",
                                             "9223372036854775807",
                                             "-9223372036854775808",
                                             "-1",
                                             "0",
                                             "1e15",
                                             "1e16",
                                             "\"1e400s\"",
                                             "\"16EiB\"",
                                             "\"caf\\u00E9\"",
                                             "\"a\\u007Fb\"",
                                             "\"\\u001B[2J\"",
                                             "\"relative/dir\"",
                                             "\"x\\ny\""};
const std::array<const char*, 10> kBytes = {
    "\x7F", "\xE9", "\n", "\"", "=", "[", "]", "\x00", "\\", "\xC3"};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : random_(seed) {}

  std::string Mutate(std::string text) {
    const int rounds = 1 + Below(3);
    for (int i = 0; i < rounds && !text.empty(); ++i) MutateOnce(&text);
    return text;
  }

 private:
  size_t Below(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random_);
  }

  // The span of the value after the '=' of a random line, if any.
  bool ValueSpan(const std::string& text, size_t* begin, size_t* end) {
    size_t at = text.find(" = ", Below(text.size()));
    if (at == std::string::npos) return false;
    *begin = at + 3;
    *end = text.find('\n', *begin);
    if (*end == std::string::npos) *end = text.size();
    return true;
  }

  void MutateOnce(std::string* text) {
    size_t pos = Below(text->size());
    size_t begin = 0, end = 0;
    switch (Below(7)) {
      case 0:  // replace a value with a hostile one
        if (ValueSpan(*text, &begin, &end)) {
          text->replace(begin, end - begin, kValues[Below(kValues.size())]);
        }
        break;
      case 1:  // flip a byte
        (*text)[pos] = static_cast<char>((*text)[pos] ^ (1 << Below(8)));
        break;
      case 2: {  // insert a byte that matters to TOML or UTF-8
        const char* b = kBytes[Below(kBytes.size())];
        text->insert(pos, b,
                     b[0] == '\0' ? 1 : std::char_traits<char>::length(b));
        break;
      }
      case 3:  // delete a span
        text->erase(pos, 1 + Below(40));
        break;
      case 4: {  // duplicate a span (tables, keys)
        std::string span = text->substr(pos, 1 + Below(200));
        text->insert(Below(text->size()), span);
        break;
      }
      case 5:  // a long key where a key was
        text->insert(text->rfind('\n', pos) == std::string::npos
                         ? 0
                         : text->rfind('\n', pos) + 1,
                     std::string(64 + Below(2000), 'k') + " = 1\n");
        break;
      default:  // a digit or a sign somewhere in a number
        if (ValueSpan(*text, &begin, &end) && end > begin) {
          (*text)[begin + Below(end - begin)] = "0123456789e-+."[Below(14)];
        }
        break;
    }
  }

  std::mt19937_64 random_;
};

// InvalidInput names "fuzz.toml" and a line (or the file as a whole).
void ExpectOkOrBadInput(const Status& st, const std::string& input) {
  if (st.ok()) return;
  ASSERT_TRUE(st.IsInvalidInput()) << st.message() << "\n--- input:\n" << input;
  ASSERT_EQ(st.message().rfind(kName, 0), 0u) << st.message();
}

// Written back as TOML, a file that read OK reads OK again; its JSON is
// text that never throws.
template <typename T, typename Parse, typename Write>
void ExpectRoundTrip(const T& value, Parse parse, Write write,
                     const std::string& input) {
  const std::string again = write(value);
  T reread;
  Status st = parse(again, kName, &reread);
  ASSERT_TRUE(st.ok()) << st.message() << "\n--- written:\n"
                       << again << "\n--- from:\n"
                       << input;
  EXPECT_FALSE(JsonText(ToJson(value)).empty());
}

// How many inputs some reader took: the mutations keep many files valid,
// so the round trip is exercised, and break many, so the errors are.
int read_ok = 0;

void FeedEveryReader(const std::string& input) {
  VolumeSet volumes;
  Status st = ParseVolumes(input, kName, &volumes);
  int before = read_ok;
  ExpectOkOrBadInput(st, input);
  if (st.ok()) ExpectRoundTrip(volumes, ParseVolumes, VolumesToToml, input);
  read_ok += st.ok() ? 1 : 0;
  Workload workload;
  st = ParseWorkload(input, kName, &workload);
  ExpectOkOrBadInput(st, input);
  if (st.ok()) ExpectRoundTrip(workload, ParseWorkload, WorkloadToToml, input);
  read_ok += st.ok() ? 1 : 0;
  Plan plan;
  st = ParsePlan(input, kName, &plan);
  ExpectOkOrBadInput(st, input);
  if (st.ok()) ExpectRoundTrip(plan, ParsePlan, PlanToToml, input);
  read_ok += st.ok() ? 1 : 0;
  read_ok = std::min(read_ok, before + 1);
  Catalog catalog;
  ExpectOkOrBadInput(ParseCatalog(input, kName, &catalog), input);
  PipelineFile pipeline;
  ExpectOkOrBadInput(ParsePipelineFile(input, kName, &pipeline), input);
}

TEST(TomlFuzz, TheExamplesReadBackUnchanged) {
  for (const std::string& text : Examples()) FeedEveryReader(text);
}

TEST(TomlFuzz, MutatedExamplesAreReadOrRefusedWithAPosition) {
  const std::vector<std::string> examples = Examples();
  Mutator mutator(kSeed);
  read_ok = 0;
  for (int i = 0; i < kInputs && !HasFatalFailure(); ++i) {
    SCOPED_TRACE(::testing::Message() << "input " << i);
    FeedEveryReader(mutator.Mutate(examples[i % examples.size()]));
  }
  EXPECT_GT(read_ok, kInputs / 10);
  EXPECT_LT(read_ok, kInputs * 9 / 10);
}

}  // namespace
}  // namespace pglayout
