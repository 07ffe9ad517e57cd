// The pipeline's files: volumes.toml, workload.toml and plan.toml.
//
// Each Read* parses and validates a file into the model (common/model.h).
// On failure it returns InvalidInput whose message starts with
// "file:line:column:" and names the key; an unknown key is an error that
// suggests the nearest known one, because a typo in a capacity plan must
// not pass silently. Nothing is partially stored on failure.
//
// Each *ToToml writes the canonical form: reading it back gives the same
// model (round trip), and the same model gives the same bytes.

#ifndef PGLAYOUT_COMMON_FILES_H_
#define PGLAYOUT_COMMON_FILES_H_

#include <string>
#include <string_view>

#include "common/model.h"
#include "common/status.h"
#include "common/volume_catalog.h"

namespace pglayout {

enum class FileKind { kVolumes, kWorkload, kPlan };
const char* FileKindName(FileKind kind);  // "volumes", "workload", "plan"

// Reads a whole file; NotFound / IoError name the path.
Status ReadTextFile(const std::string& path, std::string* contents);
// ReadTextFile for an input file of the pipeline (TOML, plan.json): one
// larger than kMaxInputFileBytes (common/input_limits.h) is InvalidInput
// naming the path, refused before it is read.
Status ReadInputFile(const std::string& path, std::string* contents);
// Writes |contents| to |path| atomically (temporary file + rename), so a
// reader never sees half a file.
Status WriteTextFile(const std::string& path, std::string_view contents);

// Tells the kind of a pipeline file from its top-level tables: [[volume]]
// -> volumes; [[relation]], [wal] or [checkpoints] -> workload;
// [[placement]] or [[tablespace]] -> plan.
Status DetectFileKind(std::string_view text, const std::string& source_name,
                      FileKind* kind);

// A pipeline file of any kind, parsed once: |kind| says which member holds
// it (the others stay empty).
struct PipelineFile {
  FileKind kind = FileKind::kVolumes;
  VolumeSet volumes;
  Workload workload;
  Plan plan;
};

// Tells the kind as DetectFileKind does and reads the file as the matching
// Parse* does, from one parse of the TOML text.
Status ParsePipelineFile(std::string_view text, const std::string& source_name,
                         PipelineFile* out);

Status ParseVolumes(std::string_view text, const std::string& source_name,
                    VolumeSet* out);
Status ReadVolumesFile(const std::string& path, VolumeSet* out);
std::string VolumesToToml(const VolumeSet& volumes);

Status ParseWorkload(std::string_view text, const std::string& source_name,
                     Workload* out);
Status ReadWorkloadFile(const std::string& path, Workload* out);
std::string WorkloadToToml(const Workload& workload);

Status ParsePlan(std::string_view text, const std::string& source_name,
                 Plan* out);
Status ReadPlanFile(const std::string& path, Plan* out);
std::string PlanToToml(const Plan& plan);

// catalog.toml (common/volume_catalog.h; format in examples/catalog/README.md).
// Besides types, ranges and unknown keys, rejects: no [[volume_type]], a
// duplicate type name, max_size below min_size, a throughput_unit other than
// "MB/s" or "MiB/s", a type that gives no IOPS or no throughput, provisioned
// IOPS without [[iops_price]] tiers (rising; only the last open-ended),
// and a figure that is neither covered by a [[source]] (ref + YYYY-MM-DD
// date) nor listed in 'assumed', or that is both.
Status ParseCatalog(std::string_view text, const std::string& source_name,
                    Catalog* out);
Status ReadCatalogFile(const std::string& path, Catalog* out);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_FILES_H_
