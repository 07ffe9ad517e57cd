// JSON forms of the model, for machines: `--json` output and plan.json.
// Keys keep the order of the TOML files; the same model gives the same text.

#ifndef PGLAYOUT_COMMON_JSON_H_
#define PGLAYOUT_COMMON_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/model.h"

namespace pglayout {

using Json = nlohmann::ordered_json;

// volumes: {host, volumes[{..., topology, curves{randread[], paced_read[],
// seqread[], randwrite[]}}]}
Json ToJson(const VolumeSet& volumes);
// workload: {observation, settings, wal, checkpoints, tablespaces[], io[],
// relations[]}
Json ToJson(const Workload& workload);
// plan: {plan, wal, tablespaces[], placements[{..., volumes[]}], settings[],
// stripes[], forecast[], backup{wal-g, pgbackrest}}
Json ToJson(const Plan& plan);

// |json| as indented text that never throws: strings that are not UTF-8
// (a file name, a name from an SQL_ASCII database) have their bad bytes
// written as \xNN; numbers that are not finite become null.
std::string JsonText(const Json& json, int indent = 2);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_JSON_H_
