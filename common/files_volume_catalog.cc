// catalog.toml: cloud volume types for capacity planning
// (common/volume_catalog.h).

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>

#include "common/files.h"
#include "common/suggest.h"
#include "common/toml_reader.h"
#include "common/volume_catalog.h"

namespace pglayout {
namespace {

using internal::KeyReader;

// The keys of a [[volume_type]] that are figures: each must be sourced or
// assumed. name, provider, kind and description only describe the type.
constexpr std::array<std::string_view, 20> kFigures = {
    "min_size",
    "max_size",
    "size_step",
    "iops_base",
    "iops_per_gib",
    "iops_max",
    "iops_max_per_gib",
    "iops_provisioned",
    "throughput_base",
    "throughput_per_gib",
    "throughput_per_iops",
    "throughput_max",
    "throughput_max_per_iops",
    "throughput_provisioned",
    "read_latency_us",
    "sync_write_latency_us",
    "price_per_gib",
    "iops_price",
    "price_per_throughput",
    "throughput_unit",
};

bool IsFigure(std::string_view key) {
  return std::find(kFigures.begin(), kFigures.end(), key) != kFigures.end();
}

// "YYYY-MM-DD" with plausible month and day.
bool IsDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const int month = std::stoi(s.substr(5, 2));
  const int day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::string TypeContext(const toml::table& table, size_t index) {
  std::optional<std::string> name = table["name"].value<std::string>();
  if (name && !name->empty()) return fmt::format("[[volume_type]] '{}'", *name);
  return fmt::format("[[volume_type]] #{}", index + 1);
}

// A figure name in |figures| (or |assumed|) that is not a figure key.
void CheckFigureNames(const std::vector<std::string>& names,
                      std::string_view key, KeyReader* r) {
  std::vector<std::string_view> known(kFigures.begin(), kFigures.end());
  for (const std::string& name : names) {
    if (IsFigure(name)) continue;
    std::string nearest = NearestName(name, known);
    r->Fail(key,
            fmt::format("'{}' is not a figure of a volume type{}", name,
                        nearest.empty()
                            ? ""
                            : fmt::format(" (did you mean '{}'?)", nearest)));
    return;
  }
}

Status ReadSource(const toml::table& table, const std::string& file,
                  const std::string& context, CatalogSource* s) {
  KeyReader r(table, file, context + " [[source]]");
  r.StringList("figures", &s->figures);
  r.String("ref", &s->ref, KeyReader::kRequired);
  r.String("date", &s->date, KeyReader::kRequired);
  r.String("note", &s->note);
  if (!r.failed() && s->figures.empty()) {
    r.Fail("figures", "must name at least one figure this source gives");
  }
  if (!r.failed() && s->ref.empty()) r.Fail("ref", "must not be empty");
  if (!r.failed() && !IsDate(s->date)) {
    r.Fail("date", fmt::format("expected YYYY-MM-DD, got '{}'", s->date));
  }
  if (!r.failed()) CheckFigureNames(s->figures, "figures", &r);
  return r.Finish();
}

Status ReadTier(const toml::table& table, const std::string& file,
                const std::string& context, PriceTier* t) {
  KeyReader r(table, file, context + " [[iops_price]]");
  r.Number("up_to", &t->up_to);
  r.Number("price", &t->price, 0, KeyReader::kRequired);
  return r.Finish();
}

void ReadSizes(KeyReader* k, VolumeType* t) {
  k->Size("min_size", &t->min_size, KeyReader::kRequired);
  k->Size("max_size", &t->max_size, KeyReader::kRequired);
  k->Size("size_step", &t->size_step);
  if (k->failed()) return;
  if (t->min_size == 0) k->Fail("min_size", "must be positive");
  if (t->max_size < t->min_size) {
    k->Fail("max_size", "must be at least min_size");
  }
  if (t->size_step == 0) k->Fail("size_step", "must be positive");
}

void ReadPerformance(KeyReader* k, VolumeType* t) {
  k->Number("iops_base", &t->iops_base);
  k->Number("iops_per_gib", &t->iops_per_gib);
  k->Number("iops_max", &t->iops_max, 1, KeyReader::kRequired);
  k->Number("iops_max_per_gib", &t->iops_max_per_gib);
  k->Bool("iops_provisioned", &t->iops_provisioned);
  k->String("throughput_unit", &t->throughput_unit, KeyReader::kRequired);
  k->Number("throughput_base", &t->throughput_base);
  k->Number("throughput_per_gib", &t->throughput_per_gib);
  k->Number("throughput_per_iops", &t->throughput_per_iops);
  k->Number("throughput_max", &t->throughput_max, 1e-9, KeyReader::kRequired);
  k->Number("throughput_max_per_iops", &t->throughput_max_per_iops);
  k->Bool("throughput_provisioned", &t->throughput_provisioned);
  k->Number("read_latency_us", &t->read_latency_us, 1, KeyReader::kRequired);
  k->Number("sync_write_latency_us", &t->sync_write_latency_us, 1,
            KeyReader::kRequired);
  if (k->failed()) return;
  if (t->throughput_unit != "MB/s" && t->throughput_unit != "MiB/s") {
    k->Fail("throughput_unit",
            fmt::format("expected \"MB/s\" or \"MiB/s\", got '{}'",
                        t->throughput_unit));
  } else if (!t->iops_provisioned && t->iops_base <= 0 &&
             t->iops_per_gib <= 0) {
    k->Fail("iops_base",
            "the type gives no IOPS: set iops_base or iops_per_gib, or "
            "iops_provisioned = true");
  } else if (!t->throughput_provisioned && t->throughput_base <= 0 &&
             t->throughput_per_gib <= 0 && t->throughput_per_iops <= 0) {
    k->Fail("throughput_base",
            "the type gives no throughput: set throughput_base, "
            "throughput_per_gib or throughput_per_iops, or "
            "throughput_provisioned = true");
  }
}

// Tiers rise strictly; only the last is open-ended (up_to absent).
void CheckTiers(KeyReader* k, const VolumeType& t) {
  if (t.iops_provisioned && t.iops_price.empty()) {
    k->Fail("iops_provisioned",
            "provisioned IOPS need a price: add [[volume_type.iops_price]]");
    return;
  }
  double previous = 0;
  for (size_t i = 0; i < t.iops_price.size(); ++i) {
    const bool last = i + 1 == t.iops_price.size();
    const double up_to = t.iops_price[i].up_to;
    if (last ? up_to != 0 : up_to <= previous) {
      k->Fail("iops_price",
              last ? "the last tier must have no 'up_to' (it has no limit)"
                   : "each tier's 'up_to' must be above the previous one's");
      return;
    }
    previous = up_to;
  }
}

void ReadPrices(KeyReader* k, const std::string& file,
                const std::string& context, VolumeType* t, Status* status) {
  k->Number("price_per_gib", &t->price_per_gib, 0, KeyReader::kRequired);
  k->Number(
      "price_per_throughput", &t->price_per_throughput, 0,
      t->throughput_provisioned ? KeyReader::kRequired : KeyReader::kOptional);
  for (const toml::table* tier : k->Tables("iops_price")) {
    if (!status->ok()) return;
    t->iops_price.emplace_back();
    *status = ReadTier(*tier, file, context, &t->iops_price.back());
  }
  if (!k->failed() && status->ok()) CheckTiers(k, *t);
}

// Every figure given is sourced or assumed, never both; every figure named
// by a source or as assumed is given.
void CheckProvenance(const toml::table& table, KeyReader* k,
                     const VolumeType& t) {
  std::set<std::string> sourced;
  for (const CatalogSource& s : t.sources) {
    sourced.insert(s.figures.begin(), s.figures.end());
  }
  for (const std::string& a : t.assumed) {
    if (sourced.count(a)) {
      k->Fail("assumed", fmt::format("'{}' is both sourced and assumed", a));
      return;
    }
    sourced.insert(a);
  }
  for (const std::string& figure : sourced) {
    if (table.contains(figure)) continue;
    k->Fail(table.contains("assumed") ? "assumed" : "source",
            fmt::format("names '{}', which this type does not give", figure));
    return;
  }
  for (const auto& [key, value] : table) {
    if (!IsFigure(key.str()) || sourced.count(std::string(key.str()))) {
      continue;
    }
    k->Fail(key.str(),
            "has no source: name it in a [[volume_type.source]] 'figures' "
            "list, or in 'assumed' if nobody could source it");
    return;
  }
}

Status ReadType(const toml::table& table, const std::string& file, size_t index,
                VolumeType* t) {
  const std::string context = TypeContext(table, index);
  KeyReader k(table, file, context);
  k.String("name", &t->name, KeyReader::kRequired);
  if (!k.failed() && t->name.empty()) k.Fail("name", "must not be empty");
  k.String("provider", &t->provider, KeyReader::kRequired);
  k.String("kind", &t->kind);
  k.String("description", &t->description);
  if (!k.failed() && t->kind.empty()) t->kind = t->name;
  ReadSizes(&k, t);
  ReadPerformance(&k, t);
  Status nested;
  ReadPrices(&k, file, context, t, &nested);
  k.StringList("assumed", &t->assumed);
  if (!k.failed()) CheckFigureNames(t->assumed, "assumed", &k);
  for (const toml::table* s : k.Tables("source")) {
    if (!nested.ok()) break;
    t->sources.emplace_back();
    nested = ReadSource(*s, file, context, &t->sources.back());
  }
  if (!k.failed() && nested.ok()) CheckProvenance(table, &k, *t);
  PGLAYOUT_RETURN_IF_ERROR(k.Finish());
  return nested;
}

Status CheckUniqueTypes(const toml::table& root, const std::string& file,
                        const std::vector<VolumeType>& types) {
  std::set<std::string> seen;
  const toml::array* array = root["volume_type"].as_array();
  for (size_t i = 0; i < types.size(); ++i) {
    if (seen.insert(types[i].name).second) continue;
    const toml::node* name = array->get(i)->as_table()->get("name");
    return Status::InvalidInput(fmt::format(
        "{}: [[volume_type]] key 'name': duplicate volume type '{}'",
        internal::Position(file, name->source()), types[i].name));
  }
  return Status::Ok();
}

}  // namespace

double VolumeType::ThroughputUnitBytes() const {
  return throughput_unit == "MiB/s" ? 1048576.0 : 1e6;
}

bool VolumeType::IsAssumed(const std::string& figure) const {
  return std::find(assumed.begin(), assumed.end(), figure) != assumed.end();
}

Status ParseCatalog(std::string_view text, const std::string& source_name,
                    Catalog* out) {
  toml::table root;
  PGLAYOUT_RETURN_IF_ERROR(internal::ParseToml(text, source_name, &root));
  Catalog result;
  KeyReader r(root, source_name, "the catalog file");
  if (const toml::table* head = r.Table("catalog"); head != nullptr) {
    KeyReader h(*head, source_name, "[catalog]");
    h.String("currency", &result.currency);
    h.String("note", &result.note);
    PGLAYOUT_RETURN_IF_ERROR(h.Finish());
  }
  std::vector<const toml::table*> tables = r.Tables("volume_type");
  PGLAYOUT_RETURN_IF_ERROR(r.Finish());
  for (size_t i = 0; i < tables.size(); ++i) {
    result.types.emplace_back();
    PGLAYOUT_RETURN_IF_ERROR(
        ReadType(*tables[i], source_name, i, &result.types.back()));
  }
  if (result.types.empty()) {
    return Status::InvalidInput(source_name +
                                ": declares no [[volume_type]]; capacity "
                                "planning needs at least one");
  }
  PGLAYOUT_RETURN_IF_ERROR(CheckUniqueTypes(root, source_name, result.types));
  *out = std::move(result);
  return Status::Ok();
}

Status ReadCatalogFile(const std::string& path, Catalog* out) {
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadInputFile(path, &text));
  return ParseCatalog(text, path, out);
}

}  // namespace pglayout
