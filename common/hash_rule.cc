#include "common/hash_rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "common/quote.h"

namespace pglayout {
namespace {

const char* KindName(KeyConstraintFact::Kind kind) {
  switch (kind) {
    case KeyConstraintFact::Kind::kPrimaryKey:
      return "primary key";
    case KeyConstraintFact::Kind::kExclusion:
      return "exclusion constraint";
    case KeyConstraintFact::Kind::kUnique:
      break;
  }
  return "unique index";
}

void CheckKeyContains(const KeyConstraintFact& k,
                      const std::vector<std::string>& key,
                      std::vector<std::string>* out) {
  std::vector<std::string> missing;
  for (const std::string& column : key) {
    if (std::find(k.columns.begin(), k.columns.end(), column) ==
        k.columns.end()) {
      missing.push_back(column);
    }
  }
  if (missing.empty() && !k.has_expressions) return;
  out->push_back(fmt::format(
      "{}{} ({}) does not contain the partition key column(s) {}: "
      "PostgreSQL requires every unique constraint of a partitioned table "
      "to include the key",
      KindName(k.kind), k.name.empty() ? "" : " " + DisplayIdent(k.name),
      DisplayIdentList(k.columns),
      DisplayIdentList(missing.empty() ? key : missing)));
}

void CheckTriggers(const HashRuleFacts& f, std::vector<std::string>* out) {
  for (const TriggerFact& t : f.triggers) {
    if (t.row && t.transition_tables) {
      out->push_back("row trigger " + DisplayIdent(t.name) +
                     " has transition tables, which a partitioned table's "
                     "row triggers cannot have");
    }
    if (t.row && t.before && f.server_version_num < 130000) {
      out->push_back("BEFORE ROW trigger " + DisplayIdent(t.name) +
                     " is not supported on partitioned tables before 13");
    }
  }
}

}  // namespace

std::vector<std::string> CheckHashKey(const HashRuleFacts& f,
                                      const std::vector<std::string>& key) {
  std::vector<std::string> out;
  if (key.empty()) {
    out.push_back(
        "no primary key: give the hash key with --key TABLE=COLUMN[,...]");
    return out;
  }
  for (const KeyConstraintFact& k : f.keys) CheckKeyContains(k, key, &out);
  return out;
}

std::vector<std::string> CheckHashConversion(
    const HashRuleFacts& f, const std::vector<std::string>& key) {
  std::vector<std::string> out = CheckHashKey(f, key);
  for (const KeyConstraintFact& k : f.keys) {
    if (k.kind == KeyConstraintFact::Kind::kExclusion &&
        f.server_version_num < 170000) {
      out.push_back("exclusion constraint " + DisplayIdent(k.name) +
                    " cannot exist on a partitioned table before "
                    "PostgreSQL 17");
    }
  }
  if (f.server_version_num < 180000) {
    for (const ForeignKeyFact& fk : f.fks_out) {
      out.push_back(fmt::format(
          "foreign key {} references {}: adding it to a partitioned table "
          "without a long lock needs NOT VALID, which PostgreSQL supports "
          "from 18",
          DisplayIdent(fk.name), fk.table));
    }
  }
  for (const std::string& c : f.no_inherit_checks) {
    out.push_back("CHECK constraint " + DisplayIdent(c) +
                  " is NO INHERIT, which a partitioned table cannot have");
  }
  CheckTriggers(f, &out);
  return out;
}

std::vector<std::string> CheckOnlineSwap(const HashRuleFacts& f) {
  std::vector<std::string> out;
  if (f.row_key.empty()) {
    out.push_back(
        "has no primary key and no unique index over NOT NULL columns "
        "(non-partial, no expressions): rows cannot be identified for the "
        "online copy");
  }
  for (const std::string& pub : f.publications) {
    out.push_back("is published by publication " + DisplayIdent(pub) +
                  ": a rename swap would break its subscribers");
  }
  if (f.server_version_num < 180000) {
    for (const ForeignKeyFact& fk : f.fks_in_from_partitioned) {
      out.push_back(fmt::format(
          "foreign key {} of partitioned table {} references it: the swap "
          "re-adds it NOT VALID, which a partitioned table accepts from "
          "PostgreSQL 18",
          DisplayIdent(fk.name), fk.table));
    }
  }
  return out;
}

std::vector<std::string> CheckParentReferencers(
    const std::string& parent,
    const std::vector<ForeignKeyFact>& from_partitioned,
    int server_version_num) {
  std::vector<std::string> out;
  for (const ForeignKeyFact& fk : from_partitioned) {
    if (fk.table == parent) {
      out.push_back(fmt::format(
          "its parent {} has foreign key {} to itself: the swap would drop "
          "and validate it again over every partition",
          parent, DisplayIdent(fk.name)));
    } else if (server_version_num < 180000) {
      out.push_back(fmt::format(
          "foreign key {} of partitioned table {} references its parent {}: "
          "the swap re-adds it NOT VALID, which a partitioned table accepts "
          "from PostgreSQL 18",
          DisplayIdent(fk.name), fk.table, parent));
    }
  }
  return out;
}

std::vector<std::string> KeyConstraintEntry(const KeyConstraintFact& key) {
  const char* kind =
      key.kind == KeyConstraintFact::Kind::kPrimaryKey  ? "primary"
      : key.kind == KeyConstraintFact::Kind::kExclusion ? "exclusion"
                                                        : "unique";
  std::vector<std::string> entry = {
      std::string(kind) + (key.has_expressions ? "_expressions" : ""),
      key.name};
  entry.insert(entry.end(), key.columns.begin(), key.columns.end());
  return entry;
}

KeyConstraintFact KeyConstraintFromEntry(
    const std::vector<std::string>& entry) {
  KeyConstraintFact k;
  std::string kind = entry[0];
  constexpr std::string_view kExpressions = "_expressions";
  if (kind.ends_with(kExpressions)) {
    k.has_expressions = true;
    kind.resize(kind.size() - kExpressions.size());
  }
  k.kind = kind == "primary"     ? KeyConstraintFact::Kind::kPrimaryKey
           : kind == "exclusion" ? KeyConstraintFact::Kind::kExclusion
                                 : KeyConstraintFact::Kind::kUnique;
  k.name = entry[1];
  k.columns.assign(entry.begin() + 2, entry.end());
  return k;
}

std::vector<std::string> HashKeyColumns(const std::string& partition_key) {
  constexpr std::string_view kHash = "HASH (";
  if (!partition_key.starts_with(kHash) || !partition_key.ends_with(")")) {
    return {};
  }
  const std::string list = partition_key.substr(
      kHash.size(), partition_key.size() - kHash.size() - 1);
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= list.size()) {
    std::string name;
    if (at < list.size() && list[at] == '"') {
      // A quoted identifier: "" stands for one ".
      size_t i = at + 1;
      for (; i < list.size(); ++i) {
        if (list[i] != '"') {
          name += list[i];
        } else if (i + 1 < list.size() && list[i + 1] == '"') {
          name += '"';
          ++i;
        } else {
          break;
        }
      }
      if (i >= list.size()) return {};
      at = i + 1;
    } else {
      size_t end = list.find(", ", at);
      name = list.substr(
          at, end == std::string::npos ? std::string::npos : end - at);
      const bool plain =
          !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '_' || (static_cast<unsigned char>(c) & 0x80);
          });
      if (!plain) return {};
      at += name.size();
    }
    out.push_back(name);
    if (at == list.size()) return out;
    if (list.compare(at, 2, ", ") != 0) return {};  // an opclass, COLLATE
    at += 2;
  }
  return {};
}

std::string UnknownFactsReason(const std::vector<std::string>& unknown) {
  std::string list;
  for (const std::string& u : unknown) {
    if (!list.empty()) list += ", ";
    list += u;
  }
  return "workload.toml does not record its " + list +
         " (pglayout observe records them: observe again to judge it)";
}

}  // namespace pglayout
