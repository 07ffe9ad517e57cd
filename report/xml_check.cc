#include "report/xml_check.h"

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

namespace pglayout::report::testing {

struct XmlPage::Impl {
  xmlDocPtr doc = nullptr;
};

namespace {

// Collects libxml2's first error message instead of printing it.
void CollectError(void* context, xmlErrorPtr error) {
  auto* message = static_cast<std::string*>(context);
  if (message->empty() && error != nullptr && error->message != nullptr) {
    *message = std::to_string(error->line) + ":" + std::to_string(error->int2) +
               ": " + error->message;
  }
}

std::string NodeText(xmlNodePtr node) {
  xmlChar* content = xmlNodeGetContent(node);
  std::string text = content ? reinterpret_cast<const char*>(content) : "";
  xmlFree(content);
  return text;
}

}  // namespace

std::unique_ptr<XmlPage> XmlPage::Parse(const std::string& text,
                                        std::string* error) {
  error->clear();
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  xmlSetStructuredErrorFunc(error, &CollectError);
  // No XML_PARSE_RECOVER: the first error fails the parse. NONET: the
  // DOCTYPE must not make the parser fetch anything.
  xmlDocPtr doc =
      xmlCtxtReadMemory(ctxt, text.data(), static_cast<int>(text.size()),
                        "report.html", "UTF-8", XML_PARSE_NONET);
  xmlSetStructuredErrorFunc(nullptr, nullptr);
  bool well_formed = ctxt->wellFormed != 0;
  xmlFreeParserCtxt(ctxt);
  if (doc == nullptr || !well_formed) {
    if (doc) xmlFreeDoc(doc);
    if (error->empty()) *error = "not well-formed";
    return nullptr;
  }
  std::unique_ptr<XmlPage> page(new XmlPage);
  page->impl_ = std::make_unique<Impl>();
  page->impl_->doc = doc;
  return page;
}

XmlPage::~XmlPage() {
  if (impl_ && impl_->doc) xmlFreeDoc(impl_->doc);
}

std::vector<std::string> XmlPage::Texts(const std::string& xpath) const {
  std::vector<std::string> texts;
  xmlXPathContextPtr ctx = xmlXPathNewContext(impl_->doc);
  xmlXPathRegisterNs(ctx, BAD_CAST "h",
                     BAD_CAST "http://www.w3.org/1999/xhtml");
  xmlXPathRegisterNs(ctx, BAD_CAST "s", BAD_CAST "http://www.w3.org/2000/svg");
  xmlXPathObjectPtr result =
      xmlXPathEvalExpression(BAD_CAST xpath.c_str(), ctx);
  if (result && result->nodesetval) {
    for (int i = 0; i < result->nodesetval->nodeNr; ++i) {
      texts.push_back(NodeText(result->nodesetval->nodeTab[i]));
    }
  }
  xmlXPathFreeObject(result);
  xmlXPathFreeContext(ctx);
  return texts;
}

int XmlPage::Count(const std::string& xpath) const {
  return static_cast<int>(Texts(xpath).size());
}

std::string XmlPage::AllText() const {
  return NodeText(xmlDocGetRootElement(impl_->doc));
}

}  // namespace pglayout::report::testing
