/* libsecret, loaded on first use.

   Linking libsecret makes every unitool process load it and the eight libraries under it, and
   run their constructors, before main: about 1.3 ms of a 7 ms `--version` and of every command,
   though only the commands that read or keep a password talk to the keyring. So unitool loads
   libsecret-1.so.0 with dlopen the first time it needs it, looks up the few functions it calls,
   and keeps it loaded for the rest of the process. The types are declared in secret_abi.h. */

#include "unitool_secret.h"
#include "secret_abi.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<libsecret-1/libsecret/secret-version.h>)
/* Only the version macros, which need no other header (so no include path of libsecret's or
   GLib's); secret-version.h refuses to be included on its own unless told it is inside secret.h. */
#define __SECRET_INSIDE_HEADER__
#include <libsecret-1/libsecret/secret-version.h>
#undef __SECRET_INSIDE_HEADER__
#define UNITOOL_HAS_SECRET_VERSION 1
#endif

static const char *const library_name = "libsecret-1.so.0";

/* The functions unitool calls, from libsecret and the GLib libraries it depends on. */
typedef struct {
    int (*password_storev_sync)(
        const unitool_abi_schema *, void *attributes, const char *collection, const char *label, const char *password,
        void *cancellable, unitool_abi_error **);
    unitool_abi_list *(*password_searchv_sync)(
        const unitool_abi_schema *, void *attributes, int flags, void *cancellable, unitool_abi_error **);
    int (*password_clearv_sync)(const unitool_abi_schema *, void *attributes, void *cancellable, unitool_abi_error **);
    void *(*service_get_sync)(int flags, void *cancellable, unitool_abi_error **);
    void *(*collection_for_alias_sync)(void *service, const char *alias, int flags, void *cancellable, unitool_abi_error **);
    int (*collection_get_locked)(void *collection);
    void *(*retrievable_get_attributes)(void *item);
    void *(*retrievable_retrieve_secret_sync)(void *item, void *cancellable, unitool_abi_error **);
    const char *(*value_get)(void *value, size_t *length);
    void (*value_unref)(void *value);
    uint32_t (*secret_error_quark)(void);
    void *(*hash_table_new_full)(void *hash, void *equal, void (*free_key)(void *), void (*free_value)(void *));
    void *str_hash;
    void *str_equal;
    int (*hash_table_insert)(void *table, void *key, void *value);
    void *(*hash_table_lookup)(void *table, const void *key);
    void (*hash_table_unref)(void *table);
    char *(*strdup)(const char *);
    void (*free)(void *);
    void (*list_free_full)(unitool_abi_list *, void (*)(void *));
    void (*object_unref)(void *);
    void (*error_free)(unitool_abi_error *);
    uint32_t (*io_error_quark)(void);
    uint32_t (*dbus_error_quark)(void);
} secret_functions;

/* Each function's name, at the offset of its pointer in secret_functions. */
static const struct {
    const char *name;
    size_t offset;
} function_names[] = {
    {"secret_password_storev_sync", offsetof(secret_functions, password_storev_sync)},
    {"secret_password_searchv_sync", offsetof(secret_functions, password_searchv_sync)},
    {"secret_password_clearv_sync", offsetof(secret_functions, password_clearv_sync)},
    {"secret_service_get_sync", offsetof(secret_functions, service_get_sync)},
    {"secret_collection_for_alias_sync", offsetof(secret_functions, collection_for_alias_sync)},
    {"secret_collection_get_locked", offsetof(secret_functions, collection_get_locked)},
    {"secret_retrievable_get_attributes", offsetof(secret_functions, retrievable_get_attributes)},
    {"secret_retrievable_retrieve_secret_sync", offsetof(secret_functions, retrievable_retrieve_secret_sync)},
    {"secret_value_get", offsetof(secret_functions, value_get)},
    {"secret_value_unref", offsetof(secret_functions, value_unref)},
    {"secret_error_get_quark", offsetof(secret_functions, secret_error_quark)},
    {"g_hash_table_new_full", offsetof(secret_functions, hash_table_new_full)},
    {"g_str_hash", offsetof(secret_functions, str_hash)},
    {"g_str_equal", offsetof(secret_functions, str_equal)},
    {"g_hash_table_insert", offsetof(secret_functions, hash_table_insert)},
    {"g_hash_table_lookup", offsetof(secret_functions, hash_table_lookup)},
    {"g_hash_table_unref", offsetof(secret_functions, hash_table_unref)},
    {"g_strdup", offsetof(secret_functions, strdup)},
    {"g_free", offsetof(secret_functions, free)},
    {"g_list_free_full", offsetof(secret_functions, list_free_full)},
    {"g_object_unref", offsetof(secret_functions, object_unref)},
    {"g_error_free", offsetof(secret_functions, error_free)},
    {"g_io_error_quark", offsetof(secret_functions, io_error_quark)},
    {"g_dbus_error_quark", offsetof(secret_functions, dbus_error_quark)},
};

static void set_error(unitool_secret_error *error, int kind, const char *message) {
    if (error == NULL) return;
    error->kind = kind;
    error->message = strdup(message);
}

/* Opens a library and fills the table from it: 1, or 0 with *error set. The library stays loaded
   (RTLD_NODELETE), even when only probed: GObject registers types that cannot be unregistered. */
static int load(const char *soname, secret_functions *functions, unitool_secret_error *error) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *reason = dlerror();
        char message[512];
        snprintf(message, sizeof message, "cannot load %s: %s", soname, reason != NULL ? reason : "unknown error");
        set_error(error, UNITOOL_SECRET_ERROR_NO_LIBRARY, message);
        return 0;
    }
    for (size_t index = 0; index < sizeof function_names / sizeof function_names[0]; index++) {
        /* dlsym on a handle searches the library and every library it depends on (GLib's). */
        void *address = dlsym(handle, function_names[index].name);
        if (address == NULL) {
            char message[512];
            snprintf(
                message, sizeof message, "%s was loaded but has no function %s", soname, function_names[index].name);
            set_error(error, UNITOOL_SECRET_ERROR_NO_LIBRARY, message);
            dlclose(handle);
            return 0;
        }
        memcpy((char *)functions + function_names[index].offset, &address, sizeof address);
    }
    return 1;
}

static secret_functions loaded;
static int loaded_ok;
static unitool_secret_error load_failure;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load_library(void) { loaded_ok = load(library_name, &loaded, &load_failure); }

/* The loaded functions, or NULL with *error set (the same failure every time). */
static const secret_functions *library(unitool_secret_error *error) {
    pthread_once(&load_once, load_library);
    if (loaded_ok) return &loaded;
    set_error(error, load_failure.kind, load_failure.message != NULL ? load_failure.message : "cannot load libsecret");
    return NULL;
}

int unitool_secret_probe(const char *soname, unitool_secret_error *error) {
    secret_functions functions;
    return load(soname, &functions, error);
}

void unitool_secret_error_clear(unitool_secret_error *error) {
    free(error->message);
    error->message = NULL;
    error->kind = UNITOOL_SECRET_ERROR_NONE;
}

/* Moves a GError into *error, sorted by its domain and code, and frees it. */
static void take_error(const secret_functions *f, unitool_abi_error *source, unitool_secret_error *error) {
    if (source == NULL) {
        set_error(error, UNITOOL_SECRET_ERROR_OTHER, "the keyring refused without saying why");
        return;
    }
    int kind = UNITOOL_SECRET_ERROR_OTHER;
    if (source->domain == f->secret_error_quark() && source->code == UNITOOL_ABI_ERROR_IS_LOCKED) {
        kind = UNITOOL_SECRET_ERROR_LOCKED;
    } else if (source->domain == f->io_error_quark() && source->code == UNITOOL_ABI_IO_ERROR_CANCELLED) {
        kind = UNITOOL_SECRET_ERROR_CANCELLED;
    } else if (source->domain == f->dbus_error_quark()) {
        kind = UNITOOL_SECRET_ERROR_DBUS;
    }
    set_error(error, kind, source->message != NULL ? source->message : "unknown error");
    f->error_free(source);
}

/* The generic schema that secret-tool also uses, with every attribute unitool sets or reads.
   DONT_MATCH_NAME lets lookups find items that secret-tool stored without a schema name. */
static const unitool_abi_schema generic_schema = {
    "org.freedesktop.Secret.Generic",
    UNITOOL_ABI_SCHEMA_DONT_MATCH_NAME,
    {
        {"service", UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING},
        {"username", UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING},
        {"portal", UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING},
        {"kind", UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING},
        {"origins", UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING},
        {NULL, 0},
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

unitool_secret_attributes *unitool_secret_attributes_new(unitool_secret_error *error) {
    const secret_functions *f = library(error);
    if (f == NULL) return NULL;
    /* GLib allocations never fail (they abort instead). */
    return f->hash_table_new_full(f->str_hash, f->str_equal, f->free, f->free);
}

/* A table exists only once the library is loaded (unitool_secret_attributes_new loads it), so
   these and the calls that take a table may use the loaded functions directly. */
void unitool_secret_attributes_set(unitool_secret_attributes *table, const char *name, const char *value) {
    loaded.hash_table_insert(table, loaded.strdup(name), loaded.strdup(value));
}

void unitool_secret_attributes_free(unitool_secret_attributes *table) { loaded.hash_table_unref(table); }

int unitool_secret_store(
    unitool_secret_attributes *attributes, const char *label, const char *secret, unitool_secret_error *error) {
    unitool_abi_error *failure = NULL;
    if (loaded.password_storev_sync(&generic_schema, attributes, NULL, label, secret, NULL, &failure)) return 1;
    take_error(&loaded, failure, error);
    return 0;
}

unitool_secret_items *unitool_secret_search(unitool_secret_attributes *attributes, unitool_secret_error *error) {
    unitool_abi_error *failure = NULL;
    unitool_abi_list *list = loaded.password_searchv_sync(
        &generic_schema, attributes,
        UNITOOL_ABI_SEARCH_ALL | UNITOOL_ABI_SEARCH_UNLOCK | UNITOOL_ABI_SEARCH_LOAD_SECRETS, NULL, &failure);
    if (failure != NULL) {
        if (list != NULL) loaded.list_free_full(list, loaded.object_unref);
        take_error(&loaded, failure, error);
        return NULL;
    }
    return (unitool_secret_items *)list;
}

void unitool_secret_items_free(unitool_secret_items *items) {
    loaded.list_free_full((unitool_abi_list *)items, loaded.object_unref);
}

unitool_secret_item *unitool_secret_items_head(unitool_secret_items *items) {
    return (unitool_secret_item *)((unitool_abi_list *)items)->data;
}

unitool_secret_items *unitool_secret_items_tail(unitool_secret_items *items) {
    return (unitool_secret_items *)((unitool_abi_list *)items)->next;
}

char *unitool_secret_item_attribute(unitool_secret_item *item, const char *name) {
    void *attributes = loaded.retrievable_get_attributes(item);
    if (attributes == NULL) return NULL;
    const char *value = loaded.hash_table_lookup(attributes, name);
    char *copy = value != NULL ? strdup(value) : NULL;
    loaded.hash_table_unref(attributes);
    return copy;
}

char *unitool_secret_item_secret(unitool_secret_item *item, size_t *length, unitool_secret_error *error) {
    unitool_abi_error *failure = NULL;
    void *value = loaded.retrievable_retrieve_secret_sync(item, NULL, &failure);
    if (value == NULL) {
        take_error(&loaded, failure, error);
        return NULL;
    }
    size_t size = 0;
    const char *bytes = loaded.value_get(value, &size);
    char *copy = malloc(size + 1);
    if (copy != NULL) {
        memcpy(copy, bytes, size);
        copy[size] = 0;
        *length = size;
    } else {
        set_error(error, UNITOOL_SECRET_ERROR_OTHER, "out of memory while copying a secret");
    }
    loaded.value_unref(value);
    return copy;
}

void unitool_secret_free(char *secret, size_t length) {
    if (secret == NULL) return;
    volatile char *bytes = secret;
    for (size_t index = 0; index < length; index++) bytes[index] = 0;
    free(secret);
}

int unitool_secret_clear(unitool_secret_attributes *attributes, unitool_secret_error *error) {
    unitool_abi_error *failure = NULL;
    int removed = loaded.password_clearv_sync(&generic_schema, attributes, NULL, &failure);
    if (failure != NULL) {
        take_error(&loaded, failure, error);
        return -1;
    }
    return removed ? 1 : 0;
}

int unitool_secret_default_collection_state(unitool_secret_error *error) {
    const secret_functions *f = library(error);
    if (f == NULL) return -1;
    unitool_abi_error *failure = NULL;
    void *service = f->service_get_sync(UNITOOL_ABI_SERVICE_NONE, NULL, &failure);
    if (service == NULL) {
        take_error(f, failure, error);
        return -1;
    }
    void *collection = f->collection_for_alias_sync(
        service, UNITOOL_ABI_COLLECTION_DEFAULT, UNITOOL_ABI_COLLECTION_NONE, NULL, &failure);
    f->object_unref(service);
    if (collection == NULL) {
        if (failure == NULL) return 2;
        take_error(f, failure, error);
        return -1;
    }
    int state = f->collection_get_locked(collection) ? 1 : 0;
    f->object_unref(collection);
    return state;
}

const char *unitool_secret_built_version(void) {
#ifdef UNITOOL_HAS_SECRET_VERSION
    static char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", SECRET_MAJOR_VERSION, SECRET_MINOR_VERSION, SECRET_MICRO_VERSION);
    return version;
#else
    return "0";
#endif
}

void unitool_secret_assumed_abi(unitool_secret_abi_facts *facts) {
    facts->schema_size = sizeof(unitool_abi_schema);
    facts->schema_flags_offset = offsetof(unitool_abi_schema, flags);
    facts->schema_attributes_offset = offsetof(unitool_abi_schema, attributes);
    facts->schema_attribute_size = sizeof(unitool_abi_schema_attribute);
    facts->error_size = sizeof(unitool_abi_error);
    facts->error_code_offset = offsetof(unitool_abi_error, code);
    facts->error_message_offset = offsetof(unitool_abi_error, message);
    facts->list_size = sizeof(unitool_abi_list);
    facts->list_next_offset = offsetof(unitool_abi_list, next);
    facts->dont_match_name = UNITOOL_ABI_SCHEMA_DONT_MATCH_NAME;
    facts->search_all = UNITOOL_ABI_SEARCH_ALL;
    facts->search_unlock = UNITOOL_ABI_SEARCH_UNLOCK;
    facts->search_load_secrets = UNITOOL_ABI_SEARCH_LOAD_SECRETS;
    facts->attribute_string = UNITOOL_ABI_SCHEMA_ATTRIBUTE_STRING;
    facts->error_is_locked = UNITOOL_ABI_ERROR_IS_LOCKED;
    facts->io_error_cancelled = UNITOOL_ABI_IO_ERROR_CANCELLED;
    facts->service_none = UNITOOL_ABI_SERVICE_NONE;
    facts->collection_none = UNITOOL_ABI_COLLECTION_NONE;
    facts->collection_default = UNITOOL_ABI_COLLECTION_DEFAULT;
}
