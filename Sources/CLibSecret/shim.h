#ifndef UNITOOL_CLIBSECRET_SHIM_H
#define UNITOOL_CLIBSECRET_SHIM_H

#include <libsecret/secret.h>
#include <string.h>

/* The generic schema that secret-tool also uses, with every attribute unitool sets or reads.
   DONT_MATCH_NAME lets lookups find items that secret-tool stored without a schema name. */
static inline const SecretSchema *unitool_generic_schema(void) {
    static const SecretSchema schema = {
        "org.freedesktop.Secret.Generic",
        SECRET_SCHEMA_DONT_MATCH_NAME,
        {
            { "service", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "username", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "portal", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "origins", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

/* An empty attribute table; free it with g_hash_table_unref. */
static inline GHashTable *unitool_attributes_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static inline void unitool_attributes_set(GHashTable *table, const char *name, const char *value) {
    g_hash_table_insert(table, g_strdup(name), g_strdup(value));
}

/* Every item that has these attributes, unlocked and with its secret loaded.
   Free the list with unitool_items_free. */
static inline GList *unitool_search(GHashTable *attributes, GError **error) {
    return secret_password_searchv_sync(
        unitool_generic_schema(), attributes, SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS,
        NULL, error);
}

/* Whether secrets can be kept now: 0 when the default collection is there and unlocked, 1 when
   it is locked, 2 when there is none (a keyring started but never unlocked); -1 with *error set
   when the Secret Service cannot be asked. A search of a locked or missing collection finds
   nothing, which is not the same as nothing stored. */
static inline int unitool_default_collection_state(GError **error) {
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, NULL, error);
    if (service == NULL) return -1;
    SecretCollection *collection =
        secret_collection_for_alias_sync(service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, NULL, error);
    g_object_unref(service);
    if (collection == NULL) return *error == NULL ? 2 : -1;
    int state = secret_collection_get_locked(collection) ? 1 : 0;
    g_object_unref(collection);
    return state;
}

static inline void unitool_items_free(GList *items) { g_list_free_full(items, g_object_unref); }

/* The item at a list node, as the interface that gives its attributes and secret. */
static inline SecretRetrievable *unitool_item(GList *node) { return SECRET_RETRIEVABLE(node->data); }

/* A copy of one attribute of an item, or NULL; free it with g_free. */
static inline gchar *unitool_item_attribute(SecretRetrievable *item, const char *name) {
    GHashTable *attributes = secret_retrievable_get_attributes(item);
    if (attributes == NULL) return NULL;
    gchar *copy = g_strdup(g_hash_table_lookup(attributes, name));
    g_hash_table_unref(attributes);
    return copy;
}

/* A copy of an item's secret, its length in *length; free it with unitool_secret_free,
   which overwrites it first. NULL with *error set when the secret cannot be read. */
static inline gchar *unitool_item_secret(SecretRetrievable *item, gsize *length, GError **error) {
    SecretValue *value = secret_retrievable_retrieve_secret_sync(item, NULL, error);
    if (value == NULL) return NULL;
    gsize size = 0;
    const gchar *bytes = secret_value_get(value, &size);
    gchar *copy = g_malloc(size + 1);
    memcpy(copy, bytes, size);
    copy[size] = 0;
    *length = size;
    secret_value_unref(value);
    return copy;
}

static inline void unitool_secret_free(gchar *secret, gsize length) {
    volatile gchar *bytes = secret;
    for (gsize index = 0; index < length; index++) bytes[index] = 0;
    g_free(secret);
}

/* The error domains, which are functions or macros in C. */
static inline GQuark unitool_secret_error_domain(void) { return SECRET_ERROR; }
static inline GQuark unitool_io_error_domain(void) { return G_IO_ERROR; }
static inline GQuark unitool_dbus_error_domain(void) { return G_DBUS_ERROR; }

/* The libsecret version unitool was built against (macros in C). */
static inline unsigned int unitool_libsecret_major(void) { return SECRET_MAJOR_VERSION; }
static inline unsigned int unitool_libsecret_minor(void) { return SECRET_MINOR_VERSION; }
static inline unsigned int unitool_libsecret_micro(void) { return SECRET_MICRO_VERSION; }

#endif
