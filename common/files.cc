#include "common/files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/toml_reader.h"

namespace pglayout {

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kVolumes:
      return "volumes";
    case FileKind::kWorkload:
      return "workload";
    case FileKind::kPlan:
      return "plan";
  }
  return "volumes";
}

Status ReadTextFile(const std::string& path, std::string* contents) {
  // As PostgreSQL words it: could not read "/x.toml": No such file or
  // directory.
  const std::string what = "could not read \"" + path + "\"";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::InvalidInput(what + ": " + std::strerror(EISDIR));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (err == ENOENT) {
      return Status::NotFound(what + ": " + std::strerror(ENOENT));
    }
    return Status::FromErrno(what, err);
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status::FromErrno(what, errno);
  *contents = buffer.str();
  return Status::Ok();
}

Status ReadInputFile(const std::string& path, std::string* contents) {
  const auto too_large = [&](uint64_t bytes) {
    return Status::InvalidInput(
        fmt::format("{}: {} bytes, more than the {} MiB an input file may have",
                    path, bytes, kMaxInputFileBytes >> 20));
  };
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > kMaxInputFileBytes) {
    return too_large(static_cast<uint64_t>(st.st_size));
  }
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(path, &text));
  // A pipe or a file that grew meanwhile.
  if (text.size() > kMaxInputFileBytes) return too_large(text.size());
  *contents = std::move(text);
  return Status::Ok();
}

Status WriteTextFile(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno("could not create " + tmp, errno);
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::FromErrno("could not write " + tmp, err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::FromErrno("could not write " + path, err);
  }
  return Status::Ok();
}

namespace {

// The kind of a parsed pipeline file, from its top-level tables.
Status KindOf(const toml::table& root, const std::string& source_name,
              FileKind* kind) {
  const toml::table* wal = root["wal"].as_table();
  const bool names_wal_volume = wal != nullptr && wal->contains("volume");
  if (root.contains("volume")) {
    *kind = FileKind::kVolumes;
  } else if (root.contains("placement") || root.contains("plan") ||
             root.contains("stripe") || names_wal_volume) {
    *kind = FileKind::kPlan;
  } else if (root.contains("relation") || root.contains("checkpoints") ||
             root.contains("wal") || root.contains("settings") ||
             root.contains("tablespace")) {
    *kind = FileKind::kWorkload;
  } else {
    return Status::InvalidInput(
        fmt::format("{}: not a pglayout file: expected [[volume]] (volumes), "
                    "[[relation]] (workload) or [[placement]] (plan) tables",
                    source_name));
  }
  return Status::Ok();
}

}  // namespace

Status DetectFileKind(std::string_view text, const std::string& source_name,
                      FileKind* kind) {
  toml::table root;
  PGLAYOUT_RETURN_IF_ERROR(internal::ParseToml(text, source_name, &root));
  return KindOf(root, source_name, kind);
}

Status ParsePipelineFile(std::string_view text, const std::string& source_name,
                         PipelineFile* out) {
  toml::table root;
  PGLAYOUT_RETURN_IF_ERROR(internal::ParseToml(text, source_name, &root));
  PipelineFile file;
  PGLAYOUT_RETURN_IF_ERROR(KindOf(root, source_name, &file.kind));
  switch (file.kind) {
    case FileKind::kVolumes:
      PGLAYOUT_RETURN_IF_ERROR(
          internal::VolumesFromToml(root, source_name, &file.volumes));
      break;
    case FileKind::kWorkload:
      PGLAYOUT_RETURN_IF_ERROR(
          internal::WorkloadFromToml(root, source_name, &file.workload));
      break;
    case FileKind::kPlan:
      PGLAYOUT_RETURN_IF_ERROR(
          internal::PlanFromToml(root, source_name, &file.plan));
      break;
  }
  *out = std::move(file);
  return Status::Ok();
}

Status ReadVolumesFile(const std::string& path, VolumeSet* out) {
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadInputFile(path, &text));
  return ParseVolumes(text, path, out);
}

Status ReadWorkloadFile(const std::string& path, Workload* out) {
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadInputFile(path, &text));
  return ParseWorkload(text, path, out);
}

Status ReadPlanFile(const std::string& path, Plan* out) {
  std::string text;
  PGLAYOUT_RETURN_IF_ERROR(ReadInputFile(path, &text));
  return ParsePlan(text, path, out);
}

}  // namespace pglayout
