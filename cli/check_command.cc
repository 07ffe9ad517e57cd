// pglayout check FILE...: validate pipeline files written by hand or by
// another stage, and say what they hold.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/command.h"
#include "cli/help_format.h"
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
        ->type_name("FILE...")
        ->required();
    app->add_flag("--json", json_, "Print the parsed files as JSON")
        ->group(kGroupOutput);
    app->footer(
        "Each error names file:line:column and the key; a misspelt key is an "
        "error\nthat suggests the nearest known key. Exit status 2 if any "
        "file is invalid.");
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
    if (json_) std::cout << JsonText(all) << "\n";
    if (errors.empty()) return Status::Ok();
    // A missing or unreadable input is bad input too: exit code 2.
    return Status::InvalidInput(fmt::format("{}", fmt::join(errors, "\n")));
  }

 private:
  Status CheckOne(const std::string& file, Json* parsed) {
    std::string text;
    PGLAYOUT_RETURN_IF_ERROR(ReadTextFile(file, &text));
    PipelineFile pipeline;  // one parse tells the kind and reads the file
    PGLAYOUT_RETURN_IF_ERROR(ParsePipelineFile(text, file, &pipeline));
    std::string summary;
    Json body;
    Describe(pipeline, &summary, &body);
    *parsed = Json{{"file", file},
                   {"kind", FileKindName(pipeline.kind)},
                   {"content", body}};
    if (!json_) {
      std::cout << fmt::format("{}: {} file, OK\n{}", file,
                               FileKindName(pipeline.kind), summary);
    }
    return Status::Ok();
  }

  static void Describe(const PipelineFile& f, std::string* summary,
                       Json* body) {
    switch (f.kind) {
      case FileKind::kVolumes:
        *summary = Summarize(f.volumes);
        *body = ToJson(f.volumes);
        return;
      case FileKind::kWorkload:
        *summary = Summarize(f.workload);
        *body = ToJson(f.workload);
        return;
      case FileKind::kPlan:
        *summary = Summarize(f.plan);
        *body = ToJson(f.plan);
        return;
    }
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
