// The --help of pglayout and its subcommands, laid out as PostgreSQL's own
// tools lay theirs out (pg_rewind, pg_basebackup): the description, a
// "Usage: pglayout SUB [OPTION]... ARGS" line, the options in their groups
// with a placeholder naming each value ("-d, --dbname=CONNSTR"), the
// footer, and where the full reference is. Every line fits 80 columns
// (tests/cli/help_test.cc).
//
// Conventions for the commands: every option that takes a value sets its
// type_name to the placeholder (CONNSTR, FILE, DIR, DURATION, SIZE, MBPS,
// N, or the choices "blocks|key"); every option sets its group (one of the
// kGroup* names below, in the order they should print); a positional's
// type_name is what the usage line shows ("PLAN", "FILE...").

#ifndef PGLAYOUT_CLI_HELP_FORMAT_H_
#define PGLAYOUT_CLI_HELP_FORMAT_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace pglayout::cli {

inline constexpr char kGroupConnection[] = "Connection options";
inline constexpr char kGroupAction[] = "What to do";
inline constexpr char kGroupInput[] = "Input options";
inline constexpr char kGroupThrottle[] = "Throttle options";
inline constexpr char kGroupSafety[] = "Safety options";
inline constexpr char kGroupCitus[] = "Citus options";
inline constexpr char kGroupOutput[] = "Output options";
inline constexpr char kGroupGeneral[] = "General options";

inline constexpr int kHelpWidth = 80;

class HelpFormatter : public CLI::FormatterBase {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
};

// "pglayout migrate": the command's name as a user types it (never the
// binary's path).
std::string CommandPath(const CLI::App* app);

// |text| wrapped to |width| columns, each line after the first (and the
// first too when |indent_first|) indented by |indent| spaces. Paragraphs
// ('\n' in |text|) are kept.
std::string Wrap(const std::string& text, size_t indent, size_t width,
                 bool indent_first);

}  // namespace pglayout::cli

#endif  // PGLAYOUT_CLI_HELP_FORMAT_H_
