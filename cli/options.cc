#include "cli/options.h"

#include <fmt/format.h>

#include "cli/help_format.h"
#include "common/units.h"

namespace pglayout::cli {

void AddConnectionOptions(CLI::App* app, const std::string& what,
                          const std::string& alias, ConnectionOptions* out) {
  app->add_option("-d,--dbname", out->dbname, what)
      ->type_name("CONNSTR")
      ->group(kGroupConnection);
  app->add_option("-h,--host", out->host,
                  "Host or socket directory, if -d names none")
      ->type_name("HOSTNAME")
      ->group(kGroupConnection);
  app->add_option("-p,--port", out->port, "Server port, if -d names none")
      ->type_name("PORT")
      ->group(kGroupConnection);
  app->add_option("-U,--username", out->username,
                  "Connect as this role, if -d names none")
      ->type_name("NAME")
      ->group(kGroupConnection);
  // Scripts written before -d keep working; --help no longer shows it.
  app->add_option(alias, out->dbname, "The same as --dbname")
      ->type_name("CONNSTR")
      ->group("");
}

bool Given(const ConnectionOptions& options) {
  return !options.dbname.empty() || !options.host.empty() ||
         !options.port.empty() || !options.username.empty();
}

CLI::Option* AddDurationOption(CLI::App* app, const std::string& name,
                               double* seconds, const std::string& description,
                               const std::string& bare_unit, double min_seconds,
                               double max_seconds) {
  const std::string option = name.substr(name.rfind(',') + 1);
  auto parse = [=](const std::string& text) {
    std::string with_unit = text;
    if (!text.empty() &&
        text.find_first_not_of("0123456789.") == std::string::npos) {
      with_unit += bare_unit;
    }
    double value = 0;
    Status st = ParseDuration(with_unit, &value);
    if (!st.ok()) throw CLI::ValidationError(option, st.message());
    if (value < min_seconds || value > max_seconds) {
      throw CLI::ValidationError(option,
                                 fmt::format("'{}' is outside {} to {}", text,
                                             FormatDuration(min_seconds),
                                             FormatDuration(max_seconds)));
    }
    *seconds = value;
  };
  return app->add_option_function<std::string>(name, parse, description)
      ->type_name("DURATION");
}

CLI::Option* AddWordOption(CLI::App* app, const std::string& name,
                           std::string* text,
                           const std::vector<std::string>& words,
                           const std::string& description) {
  const std::string option = name.substr(name.rfind(',') + 1);
  std::string listed, placeholder;
  for (size_t i = 0; i < words.size(); ++i) {
    placeholder += (i == 0 ? "" : "|") + words[i];
    listed += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  }
  auto parse = [=](const std::string& given) {
    for (const std::string& w : words) {
      if (given == w) {
        *text = given;
        return;
      }
    }
    throw CLI::ValidationError(
        option, fmt::format("'{}' is not a choice; use {}", given, listed));
  };
  return app->add_option_function<std::string>(name, parse, description)
      ->type_name(placeholder);
}

}  // namespace pglayout::cli
