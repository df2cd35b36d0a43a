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

/// A generic error handler that drops the message. libxml2's generic handler is variadic, which
/// Swift cannot write; errors worth reading arrive through the structured handler instead.
static inline void unitool_dropGenericError(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// Routes libxml2's errors away from stderr: generic messages are dropped and structured ones go
/// to `handler`, on this thread and (as the default for each thread's first use of libxml2) on
/// every other. Setting NULL, as before, restores the printer that writes to stderr.
static inline void unitool_routeErrors(xmlStructuredErrorFunc handler) {
    xmlThrDefSetGenericErrorFunc(NULL, unitool_dropGenericError);
    xmlSetGenericErrorFunc(NULL, unitool_dropGenericError);
    xmlThrDefSetStructuredErrorFunc(NULL, handler);
    xmlSetStructuredErrorFunc(NULL, handler);
}

/// The libxml2 unitool runs with, as "20914" for 2.9.14 (a global that is a macro in C).
static inline const char *unitool_libxml2_version(void) { return xmlParserVersion; }

#endif
