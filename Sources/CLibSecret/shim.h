#ifndef UNITOOL_CLIBSECRET_SHIM_H
#define UNITOOL_CLIBSECRET_SHIM_H

#include <libsecret/secret.h>
#include <string.h>

/* The generic schema that secret-tool also uses, with the two attributes unitool sets.
   DONT_MATCH_NAME lets lookups find items that secret-tool stored without a schema name. */
static inline const SecretSchema *unitool_generic_schema(void) {
    static const SecretSchema schema = {
        "org.freedesktop.Secret.Generic",
        SECRET_SCHEMA_DONT_MATCH_NAME,
        {
            { "service", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "username", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

/* A GHashTable of the two attributes; free it with g_hash_table_unref. */
static inline GHashTable *unitool_attributes(const char *service, const char *username) {
    GHashTable *table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(table, g_strdup("service"), g_strdup(service));
    g_hash_table_insert(table, g_strdup("username"), g_strdup(username));
    return table;
}

/* The error domains, which are functions or macros in C. */
static inline GQuark unitool_secret_error_domain(void) { return SECRET_ERROR; }
static inline GQuark unitool_io_error_domain(void) { return G_IO_ERROR; }
static inline GQuark unitool_dbus_error_domain(void) { return G_DBUS_ERROR; }

/* Overwrites a password with zeros and frees it (secret_password_free does both). */
static inline void unitool_password_free(gchar *password) { secret_password_free(password); }

#endif
