#include "common/toml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/suggest.h"
#include "common/text.h"
#include "common/units.h"

namespace pglayout::internal {

Status ParseToml(std::string_view text, const std::string& file,
                 toml::table* out) {
  try {
    *out = toml::parse(text, file);
    return Status::Ok();
  } catch (const toml::parse_error& e) {
    return Status::InvalidInput(
        fmt::format("{}: {}", Position(file, e.source()), e.description()));
  }
}

std::string Position(const std::string& file,
                     const toml::source_region& where) {
  return fmt::format("{}:{}:{}", file, where.begin.line, where.begin.column);
}

KeyReader::KeyReader(const toml::table& table, const std::string& file,
                     std::string context)
    : table_(table), file_(file), context_(std::move(context)) {}

void KeyReader::FailAt(const toml::source_region& where, std::string_view key,
                       const std::string& message) {
  if (failed()) return;
  status_ = Status::InvalidInput(
      fmt::format("{}: {} key '{}': {}", Position(file_, where), context_,
                  DisplayName(key, kMaxKeyShown), message));
}

void KeyReader::Fail(std::string_view key, const std::string& message) {
  const toml::node* node = table_.get(key);
  FailAt(node ? node->source() : table_.source(), key, message);
}

const toml::node* KeyReader::Find(std::string_view key, Need need) {
  known_.push_back(key);
  if (failed()) return nullptr;
  const toml::node* node = table_.get(key);
  if (node == nullptr && need == kRequired) {
    status_ = Status::InvalidInput(
        fmt::format("{}: {} is missing the required key '{}'",
                    Position(file_, table_.source()), context_, key));
  }
  return node;
}

void KeyReader::String(std::string_view key, std::string* out, Need need) {
  const toml::node* node = Find(key, need);
  if (node == nullptr) return;
  if (auto v = node->value<std::string>(); v && node->is_string()) {
    if (std::string problem = StringProblem(v->size()); !problem.empty()) {
      FailAt(node->source(), key, problem);
      return;
    }
    *out = *v;
  } else {
    FailAt(node->source(), key, "expected a string in double quotes");
  }
}

void KeyReader::Size(std::string_view key, uint64_t* out, Need need) {
  const toml::node* node = Find(key, need);
  if (node == nullptr) return;
  if (node->is_integer()) {
    int64_t v = node->value<int64_t>().value_or(0);
    if (v < 0) {
      FailAt(node->source(), key,
             fmt::format("must not be negative (got {})", v));
      return;
    }
    *out = static_cast<uint64_t>(v);
  } else if (node->is_string()) {
    Status st = ParseSize(*node->value<std::string>(), out);
    if (!st.ok()) FailAt(node->source(), key, st.message());
  } else {
    FailAt(node->source(), key,
           "expected a size such as \"600GB\" or \"512KiB\" (powers of 1024)");
    return;
  }
  if (!failed() && *out > kMaxSize) {
    FailAt(node->source(), key, "must be at most 1 EiB (2^60 bytes)");
  }
}

void KeyReader::Duration(std::string_view key, double* out, Need need) {
  const toml::node* node = Find(key, need);
  if (node == nullptr) return;
  if (node->is_number()) {
    BoundedNumber(*node, key, 0, kMaxDuration, out);
  } else if (node->is_string()) {
    double v = 0;
    Status st = ParseDuration(*node->value<std::string>(), &v);
    if (!st.ok()) {
      FailAt(node->source(), key, st.message());
    } else if (!std::isfinite(v) || v < 0 || v > kMaxDuration) {
      FailAt(node->source(), key,
             fmt::format("must be between 0 and {:g}s", kMaxDuration));
    } else {
      *out = v;
    }
  } else {
    FailAt(node->source(), key,
           "expected a duration such as \"5min\" or \"300s\"");
  }
}

void KeyReader::BoundedNumber(const toml::node& node, std::string_view key,
                              double min, double max, double* out) {
  double v = node.value<double>().value_or(0);
  if (std::string problem = FigureProblem(v, min, max); !problem.empty()) {
    FailAt(node.source(), key, problem);
  } else {
    *out = v;
  }
}

void KeyReader::Number(std::string_view key, double* out, double min,
                       Need need) {
  NumberIn(key, out, min, kMaxFigure, need);
}

void KeyReader::NumberIn(std::string_view key, double* out, double min,
                         double max, Need need) {
  const toml::node* node = Find(key, need);
  if (node == nullptr) return;
  if (!node->is_number()) {
    FailAt(node->source(), key, "expected a number");
    return;
  }
  BoundedNumber(*node, key, min, max, out);
}

void KeyReader::Integer(std::string_view key, int64_t* out, int64_t min,
                        int64_t max, Need need) {
  const toml::node* node = Find(key, need);
  if (node == nullptr) return;
  if (!node->is_integer()) {
    FailAt(node->source(), key, "expected a whole number");
    return;
  }
  int64_t v = node->value<int64_t>().value_or(0);
  if (v < min || v > max) {
    FailAt(node->source(), key,
           fmt::format("must be between {} and {} (got {})", min, max, v));
    return;
  }
  *out = v;
}

void KeyReader::Int(std::string_view key, int* out, int min, int max,
                    Need need) {
  int64_t v = *out;
  Integer(key, &v, min, max, need);
  if (!failed()) *out = static_cast<int>(v);
}

void KeyReader::Bool(std::string_view key, bool* out) {
  const toml::node* node = Find(key, kOptional);
  if (node == nullptr) return;
  if (!node->is_boolean()) {
    FailAt(node->source(), key, "expected true or false");
    return;
  }
  *out = *node->value<bool>();
}

namespace {

bool ReadStrings(const toml::array& array, std::vector<std::string>* out) {
  out->clear();
  for (const toml::node& element : array) {
    if (!element.is_string()) return false;
    out->push_back(*element.value<std::string>());
  }
  return true;
}

}  // namespace

void KeyReader::StringList(std::string_view key,
                           std::vector<std::string>* out) {
  const toml::node* node = Find(key, kOptional);
  if (node == nullptr) return;
  const toml::array* array = node->as_array();
  if (array == nullptr || !ReadStrings(*array, out)) {
    FailAt(node->source(), key,
           "expected a list of strings, e.g. [\"a\", \"b\"]");
  }
}

void KeyReader::StringListList(std::string_view key,
                               std::vector<std::vector<std::string>>* out) {
  const toml::node* node = Find(key, kOptional);
  if (node == nullptr) return;
  const toml::array* array = node->as_array();
  out->clear();
  bool ok = array != nullptr;
  for (size_t i = 0; ok && i < array->size(); ++i) {
    const toml::array* inner = array->get(i)->as_array();
    out->emplace_back();
    ok = inner != nullptr && ReadStrings(*inner, &out->back());
  }
  if (!ok) {
    FailAt(
        node->source(), key,
        "expected a list of lists of strings, e.g. [[\"a\"], [\"b\", \"c\"]]");
  }
}

bool ScalarToString(const toml::node& node, std::string* out) {
  if (node.is_string()) {
    *out = *node.value<std::string>();
  } else if (node.is_integer()) {
    *out = std::to_string(*node.value<int64_t>());
  } else if (node.is_floating_point()) {
    *out = fmt::format("{}", *node.value<double>());
  } else if (node.is_boolean()) {
    *out = *node.value<bool>() ? "on" : "off";
  } else {
    return false;
  }
  return true;
}

void KeyReader::StringMap(std::string_view key,
                          std::map<std::string, std::string>* out) {
  const toml::node* node = Find(key, kOptional);
  if (node == nullptr) return;
  const toml::table* table = node->as_table();
  if (table == nullptr) {
    FailAt(node->source(), key, "expected a table of name = value");
    return;
  }
  for (const auto& [name, value] : *table) {
    std::string text;
    if (!ScalarToString(value, &text)) {
      FailAt(value.source(), fmt::format("{}.{}", key, name.str()),
             "expected a string, number or boolean");
      return;
    }
    (*out)[std::string(name.str())] = text;
  }
}

std::vector<const toml::table*> KeyReader::Tables(std::string_view key) {
  std::vector<const toml::table*> tables;
  const toml::node* node = Find(key, kOptional);
  if (node == nullptr) return tables;
  const toml::array* array = node->as_array();
  bool ok = array != nullptr && array->is_array_of_tables();
  if (!ok) {
    FailAt(node->source(), key, fmt::format("expected [[{}]] tables", key));
    return tables;
  }
  for (const toml::node& element : *array) tables.push_back(element.as_table());
  return tables;
}

const toml::table* KeyReader::Table(std::string_view key) {
  const toml::node* node = Find(key, kOptional);
  if (node == nullptr) return nullptr;
  if (!node->is_table()) {
    FailAt(node->source(), key, fmt::format("expected a [{}] table", key));
    return nullptr;
  }
  return node->as_table();
}

Status KeyReader::Finish() {
  if (failed()) return status_;
  for (const auto& [key, value] : table_) {
    if (std::find(known_.begin(), known_.end(), key.str()) != known_.end()) {
      continue;
    }
    std::string hint;
    std::string nearest = NearestName(key.str(), known_);
    if (!nearest.empty()) hint = fmt::format(" (did you mean '{}'?)", nearest);
    return Status::InvalidInput(fmt::format(
        "{}: unknown key '{}' in {}{}", Position(file_, key.source()),
        DisplayName(key.str(), kMaxKeyShown), context_, hint));
  }
  return Status::Ok();
}

}  // namespace pglayout::internal
