#ifndef UNITOOL_CLIBXML2_SHIM_H
#define UNITOOL_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, whose headers clash with Foundation's own copy of ICU
   ("UErrorCode has different definitions"). unitool never touches the ICU converter fields,
   so the ICU declarations are left out of Swift's view. */
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>

/// `xmlFree` is a global function pointer, which Swift 6 rejects as not concurrency-safe.
static inline void unitool_xmlFree(void *pointer) { xmlFree(pointer); }

/// Silences libxml2's default error printer, which writes to stderr from inside the parser.
static inline void unitool_silenceErrors(void) {
    xmlSetGenericErrorFunc(NULL, NULL);
}

#endif
