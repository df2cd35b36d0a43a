#ifndef UNITOOL_SECRET_ABI_H
#define UNITOOL_SECRET_ABI_H

/* The part of libsecret's and GLib's ABI that unitool uses, declared here so that unitool can load
   libsecret with dlopen when it first needs the keyring instead of linking it. Linked, libsecret
   brings nine libraries (GLib, GIO, GObject, GModule, libmount, libselinux, libffi, PCRE2, blkid)
   whose loading, relocations and constructors cost about 1.3 ms in every process, `--help`
   included (BENCHMARKS.md, "start-up").

   These are libsecret-1.so.0's and libglib-2.0.so.0's stable ABI (their sonames change if it
   does). The test target CLibSecretABICheck compiles the real headers beside these declarations
   and compares every size, offset and constant (KeyringTests, "the declared ABI matches"). */

#include <stddef.h>
#include <stdint.h>

/* SecretSchemaAttribute and SecretSchema (libsecret/secret-schema.h). */
typedef struct {
    const char *name;
    int type; /* SecretSchemaAttributeType, an enum */
} unitool_abi_schema_attribute;

typedef struct {
    const char *name;
    int flags; /* SecretSchemaFlags, an enum */
    unitool_abi_schema_attribute attributes[32];
    int reserved;
    void *reserved1;
    void *reserved2;
    void *reserved3;
    void *reserved4;
    void *reserved5;
    void *reserved6;
    void *reserved7;
} unitool_abi_schema;

/* GError (glib/gerror.h); GQuark is a guint32. */
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} unitool_abi_error;

/* GList (glib/glist.h). */
typedef struct unitool_abi_list {
    void *data;
    struct unitool_abi_list *next;
    struct unitool_abi_list *prev;
} unitool_abi_list;

#define UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING 0
#define UNITOOL_ABI_SCHEMA_DONT_MATCH_NAME (1 << 1)
#define UNITOOL_ABI_SEARCH_ALL (1 << 1)
#define UNITOOL_ABI_SEARCH_UNLOCK (1 << 2)
#define UNITOOL_ABI_SEARCH_LOAD_SECRETS (1 << 3)
#define UNITOOL_ABI_SERVICE_NONE 0
#define UNITOOL_ABI_COLLECTION_NONE 0
#define UNITOOL_ABI_COLLECTION_DEFAULT "default"
#define UNITOOL_ABI_ERROR_IS_LOCKED 2 /* SecretError */
#define UNITOOL_ABI_IO_ERROR_CANCELLED 19 /* GIOErrorEnum */

#endif
