// libxml2 for feedagg's feed parser (WebFeedSource).
//
// Debian builds libxml2 with ICU, so <libxml/encoding.h> includes the system <unicode/ucnv.h>,
// whose enums clash with the ICU copy Foundation bundles. ICU only appears there in the private
// fields of xmlCharEncodingHandler, which feedagg never touches: hide it.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
