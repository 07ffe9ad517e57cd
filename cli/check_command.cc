// pglayout check FILE...: validate pipeline files written by hand or by
// another stage, and say what they hold.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/command.h"
#include "common/files.h"
#include "common/json.h"
#include "common/summary.h"

namespace pglayout::cli {
namespace {

class CheckCommand : public Command {
 public:
  void Configure(CLI::App* app) override {
    app->add_option("files", files_,
                    "volumes.toml, workload.toml or plan.toml files; the kind "
                    "is told from the tables each file holds")
        ->required();
    app->add_flag("--json", json_, "Print the parsed files as JSON");
    app->footer(
        "Each error names file:line:column and the key; a misspelt key is an "
        "error\nthat suggests the nearest known key. Exit code 2 if any file "
        "is invalid.");
  }

  Status Run(const CommandContext&) override {
    std::vector<std::string> errors;
    Json all = Json::array();
    for (const std::string& file : files_) {
      Json parsed;
      Status st = CheckOne(file, &parsed);
      if (!st.ok()) errors.push_back(st.message());
      if (st.ok() && json_) all.push_back(std::move(parsed));
    }
    if (json_) std::cout << all.dump(2) << "\n";
    if (errors.empty()) return Status::Ok();
    // A missing or unreadable input is bad input too: exit code 2.
    return Status::InvalidInput(fmt::format("{}", fmt::join(errors, "\n")));
  }

 private:
  Status CheckOne(const std::string& file, Json* parsed) {
    std::string text;
    FileKind kind;
    PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(file, &text));
    PGLAYOUT_RETURN_IF_ERROR(DetectFileKind(text, file, &kind));
    std::string summary;
    Json body;
    PGLAYOUT_RETURN_IF_ERROR(
        ParseAndSummarize(kind, text, file, &summary, &body));
    *parsed =
        Json{{"file", file}, {"kind", FileKindName(kind)}, {"content", body}};
    if (!json_) {
      std::cout << fmt::format("{}: {} file, OK\n{}", file, FileKindName(kind),
                               summary);
    }
    return Status::Ok();
  }

  template <typename Model>
  static Status Load(Status (*parse)(std::string_view, const std::string&,
                                     Model*),
                     const std::string& text, const std::string& file,
                     std::string* summary, Json* body) {
    Model model;
    PGLAYOUT_RETURN_IF_ERROR(parse(text, file, &model));
    *summary = Summarize(model);
    *body = ToJson(model);
    return Status::Ok();
  }

  static Status ParseAndSummarize(FileKind kind, const std::string& text,
                                  const std::string& file, std::string* summary,
                                  Json* body) {
    switch (kind) {
      case FileKind::kVolumes:
        return Load<VolumeSet>(ParseVolumes, text, file, summary, body);
      case FileKind::kWorkload:
        return Load<Workload>(ParseWorkload, text, file, summary, body);
      case FileKind::kPlan:
        return Load<Plan>(ParsePlan, text, file, summary, body);
    }
    return Status::Internal("unknown file kind");
  }

  std::vector<std::string> files_;
  bool json_ = false;
};

}  // namespace

PGLAYOUT_REGISTER_COMMAND(10, "check",
                          "Validate volumes, workload or plan files and "
                          "summarise them",
                          CheckCommand)

}  // namespace pglayout::cli
