#ifndef UNITOOL_SECRET_H
#define UNITOOL_SECRET_H

/* libsecret, loaded with dlopen the first time unitool needs the keyring (secret.c says why).
   unitool_secret_attributes_new and unitool_secret_default_collection_state load it if it is not
   loaded yet, and fail with UNITOOL_SECRET_ERROR_NO_LIBRARY when it cannot be; every call that
   takes an attribute table relies on that table's creation having loaded it. Only the Keyring
   target calls these. */

#include <stddef.h>

/* What kind of failure an error is, from its GError domain and code. */
#define UNITOOL_SECRET_ERROR_NONE 0
/* libsecret-1.so.0 is not installed, or lacks a function unitool calls. */
#define UNITOOL_SECRET_ERROR_NO_LIBRARY 1
/* SECRET_ERROR_IS_LOCKED. */
#define UNITOOL_SECRET_ERROR_LOCKED 2
/* G_IO_ERROR_CANCELLED: the unlock prompt was dismissed. */
#define UNITOOL_SECRET_ERROR_CANCELLED 3
/* Any error in the G_DBUS_ERROR domain. */
#define UNITOOL_SECRET_ERROR_DBUS 4
/* Anything else; the message says what. */
#define UNITOOL_SECRET_ERROR_OTHER 5

/* A failure: its kind and its message (malloc'd; release with unitool_secret_error_clear). */
typedef struct {
    int kind;
    char *message;
} unitool_secret_error;

void unitool_secret_error_clear(unitool_secret_error *error);

/* An attribute table (a GHashTable of strings). */
typedef struct unitool_secret_attributes unitool_secret_attributes;
/* A list of items found by a search, and one item of it. */
typedef struct unitool_secret_items unitool_secret_items;
typedef struct unitool_secret_item unitool_secret_item;

/* A new, empty table, or NULL with *error set when libsecret cannot be loaded. */
unitool_secret_attributes *unitool_secret_attributes_new(unitool_secret_error *error);
void unitool_secret_attributes_set(unitool_secret_attributes *table, const char *name, const char *value);
void unitool_secret_attributes_free(unitool_secret_attributes *table);

/* Stores or replaces the item with exactly these attributes, in the generic schema (the one
   secret-tool uses). 1 when stored, 0 with *error set. */
int unitool_secret_store(
    unitool_secret_attributes *attributes, const char *label, const char *secret, unitool_secret_error *error);

/* Every item that has these attributes, unlocked and with its secret loaded; NULL when there is
   none or on failure (then *error is set). Free the list with unitool_secret_items_free. */
unitool_secret_items *unitool_secret_search(unitool_secret_attributes *attributes, unitool_secret_error *error);
void unitool_secret_items_free(unitool_secret_items *items);
/* The item at the head of a list, and the rest of the list (NULL at its end). */
unitool_secret_item *unitool_secret_items_head(unitool_secret_items *items);
unitool_secret_items *unitool_secret_items_tail(unitool_secret_items *items);

/* A malloc'd copy of one attribute of an item, or NULL. */
char *unitool_secret_item_attribute(unitool_secret_item *item, const char *name);
/* A malloc'd copy of an item's secret, its length in *length; release it with
   unitool_secret_free, which overwrites it first. NULL with *error set when it cannot be read. */
char *unitool_secret_item_secret(unitool_secret_item *item, size_t *length, unitool_secret_error *error);
void unitool_secret_free(char *secret, size_t length);

/* Removes every item that has these attributes: 1 when some were removed, 0 when there was none,
   -1 with *error set on failure. */
int unitool_secret_clear(unitool_secret_attributes *attributes, unitool_secret_error *error);

/* Whether secrets can be kept now: 0 when the default collection is there and unlocked, 1 when
   it is locked, 2 when there is none (a keyring started but never unlocked); -1 with *error set
   when the Secret Service cannot be asked. */
int unitool_secret_default_collection_state(unitool_secret_error *error);

/* Loads a library as libsecret and looks up every function unitool calls, without using it
   (the library stays loaded): 1, or 0 with *error saying what is missing. For tests and
   diagnostics. */
int unitool_secret_probe(const char *soname, unitool_secret_error *error);

/* The libsecret version unitool was built against ("0.20.5"), or "0" when its headers were not
   found at build time. */
const char *unitool_secret_built_version(void);

/* The sizes, offsets and constants the ABI declarations assume; CLibSecretABICheck fills the
   same from the real headers, and a test compares the two. */
typedef struct {
    size_t schema_size, schema_flags_offset, schema_attributes_offset, schema_attribute_size;
    size_t error_size, error_code_offset, error_message_offset;
    size_t list_size, list_next_offset;
    int dont_match_name, search_all, search_unlock, search_load_secrets, attribute_string;
    int error_is_locked, io_error_cancelled, service_none, collection_none;
    const char *collection_default;
} unitool_secret_abi_facts;

void unitool_secret_assumed_abi(unitool_secret_abi_facts *facts);

#endif
