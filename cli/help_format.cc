#include "cli/help_format.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace pglayout::cli {
namespace {

// Where an option's description starts; a longer name puts its
// description on the next line.
constexpr size_t kDescriptionColumn = 32;
// Where a subcommand's one line starts in `pglayout --help`.
constexpr size_t kCommandColumn = 12;

// "  -d, --dbname=CONNSTR" or "      --apply": long names line up whether or
// not the option has a short one, as in PostgreSQL's tools.
std::string OptionTerm(const CLI::Option* opt) {
  std::string names;
  for (const std::string& s : opt->get_snames()) {
    names += (names.empty() ? "-" : ", -") + s;
  }
  const std::string shorts = names;
  for (const std::string& l : opt->get_lnames()) {
    names += (names.empty() ? "--" : ", --") + l;
  }
  std::string term = (shorts.empty() ? "      " : "  ") + names;
  // CLI11 appends its validators' descriptions (":INT in [1 - 9]",
  // ":{a,b}") to the type name: the placeholder is what precedes them.
  const std::string type = opt->get_type_name();
  if (opt->get_type_size_max() > 0 && !type.empty()) {
    term += "=" + type.substr(0, type.find(':'));
  }
  return term;
}

// |term| then |description| from kDescriptionColumn, wrapped.
std::string Entry(const std::string& term, const std::string& description,
                  size_t column) {
  std::string out = term;
  if (description.empty()) return out + "\n";
  if (term.size() + 2 > column) {
    out += "\n" + Wrap(description, column, kHelpWidth, true);
  } else {
    out += std::string(column - term.size(), ' ') +
           Wrap(description, column, kHelpWidth, false);
  }
  return out;
}

bool Shown(const CLI::Option* opt) { return !opt->get_group().empty(); }

// The footer after one blank line, however the command spells it.
std::string Footer(const CLI::App* app) {
  std::string footer = app->get_footer();
  footer.erase(0, footer.find_first_not_of('\n'));
  return footer.empty() ? "" : "\n" + footer + "\n";
}

std::string SubcommandHelp(const CLI::App* app) {
  std::ostringstream out;
  const std::string path = CommandPath(app);
  out << Wrap(path + ": " + app->get_description(), 0, kHelpWidth, false)
      << "\n";
  std::string usage = "Usage: " + path + " [OPTION]...";
  const auto positionals = app->get_options(
      [](const CLI::Option* o) { return o->get_positional() && Shown(o); });
  for (const CLI::Option* p : positionals) usage += " " + p->get_type_name();
  out << usage << "\n";
  if (!positionals.empty()) {
    out << "\nArguments:\n";
    for (const CLI::Option* p : positionals) {
      out << Entry("  " + p->get_type_name(), p->get_description(),
                   kDescriptionColumn);
    }
  }
  const CLI::Option* help = app->get_help_ptr();
  std::vector<std::string> groups;
  for (const std::string& g : app->get_groups()) {
    if (!g.empty() &&
        std::find(groups.begin(), groups.end(), g) == groups.end())
      groups.push_back(g);
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    const std::string& group = groups[i];
    const auto options = app->get_options([&](const CLI::Option* o) {
      return o->get_group() == group && o->nonpositional() && o != help;
    });
    const bool last = i + 1 == groups.size();
    if (options.empty() && !(last && help != nullptr)) continue;
    out << "\n" << group << ":\n";
    for (const CLI::Option* o : options) {
      out << Entry(OptionTerm(o), o->get_description(), kDescriptionColumn);
    }
    if (last && help != nullptr) {
      out << Entry(OptionTerm(help), help->get_description(),
                   kDescriptionColumn);
    }
  }
  out << Footer(app);
  std::string page = path;
  std::replace(page.begin(), page.end(), ' ', '-');
  out << "\nThe full reference: man " << page << ", or docs/ref/" << page
      << ".md.\n";
  return out.str();
}

std::string MainHelp(const CLI::App* app) {
  std::ostringstream out;
  out << Wrap(app->get_description(), 0, kHelpWidth, false) << "\n";
  out << "Usage: pglayout [OPTION]... COMMAND [ARG]...\n\nSubcommands:\n";
  for (const CLI::App* sub : app->get_subcommands({})) {
    out << Entry("  " + sub->get_name(), sub->get_description(),
                 kCommandColumn);
  }
  out << "\nOptions:\n";
  for (const CLI::Option* o : app->get_options([](const CLI::Option* o) {
         return o->nonpositional() && Shown(o);
       })) {
    out << Entry(OptionTerm(o), o->get_description(), kDescriptionColumn);
  }
  out << Footer(app);
  return out.str();
}

}  // namespace

std::string CommandPath(const CLI::App* app) {
  if (app->get_parent() == nullptr) return "pglayout";
  return CommandPath(app->get_parent()) + " " + app->get_name();
}

std::string Wrap(const std::string& text, size_t indent, size_t width,
                 bool indent_first) {
  const std::string pad(indent, ' ');
  std::string out;
  std::istringstream paragraphs(text);
  std::string paragraph;
  bool first_line = true;
  while (std::getline(paragraphs, paragraph)) {
    std::istringstream words(paragraph);
    std::string word;
    std::string line;
    auto flush = [&] {
      out += (first_line && !indent_first ? "" : pad) + line + "\n";
      first_line = false;
      line.clear();
    };
    while (words >> word) {
      if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
        flush();
      }
      line += (line.empty() ? "" : " ") + word;
    }
    flush();
  }
  return out;
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string,
                                     CLI::AppFormatMode) const {
  return app->get_parent() == nullptr ? MainHelp(app) : SubcommandHelp(app);
}

}  // namespace pglayout::cli
