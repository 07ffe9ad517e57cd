// Markup: builds the report's HTML and SVG so that it is well-formed by
// construction and no text from an input file can become markup.
//
// Contract:
// - Tag and attribute names are program constants; they are written as
//   given and must be valid XML names (never pass input-file text there).
// - Attribute values and text are always escaped (& < > " ' become
//   entities). Control characters other than tab and newline, and bytes
//   that are not valid UTF-8, become U+FFFD, so the output is valid UTF-8
//   and valid XML 1.0 whatever the input files hold.
// - Elements close in order; Finish() closes whatever is still open. Void
//   elements are written self-closed ("<br/>"), which both the HTML and the
//   XML parsers accept: the page is "polyglot" and the tests parse it with
//   a strict XML parser.
// - Trusted() appends raw text: for the report's own constant CSS only.

#ifndef PGLAYOUT_REPORT_MARKUP_H_
#define PGLAYOUT_REPORT_MARKUP_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pglayout::report {

// One attribute: name (a program constant) and value (any text).
using Attr = std::pair<std::string_view, std::string>;
using Attrs = std::initializer_list<Attr>;

// Text escaped for use in element content and in quoted attribute values.
std::string Escape(std::string_view text);

class Markup {
 public:
  // <tag attrs>; the element stays open until the matching Close().
  void Open(std::string_view tag, Attrs attrs = {});
  void Open(std::string_view tag, const std::vector<Attr>& attrs);
  // Closes the innermost open element. Closing with nothing open is a
  // programming error and is ignored (the output stays well-formed).
  void Close();
  // <tag attrs/>: an element without content.
  void Empty(std::string_view tag, Attrs attrs = {});
  void Empty(std::string_view tag, const std::vector<Attr>& attrs);
  // Escaped text inside the current element.
  void Text(std::string_view text);
  // <tag attrs>text</tag>.
  void Element(std::string_view tag, Attrs attrs, std::string_view text);
  void Element(std::string_view tag, std::string_view text) {
    Element(tag, {}, text);
  }
  // Appends |markup| as is. Only for constant text written in this program.
  void Trusted(std::string_view markup);
  // Appends another builder's finished output (already escaped).
  void Append(Markup&& other);

  int depth() const { return static_cast<int>(open_.size()); }
  // Closes every open element and returns the markup.
  std::string Finish();

 private:
  void WriteStart(std::string_view tag, const Attr* begin, const Attr* end);
  std::string out_;
  std::vector<std::string> open_;
};

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_MARKUP_H_
