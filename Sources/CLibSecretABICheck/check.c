/* Holds unitool's own declarations of libsecret's ABI (Sources/CLibSecret/secret_abi.h) to the
   real headers: at compile time for the layouts, and at run time, through KeyringTests, for
   everything the two report. Built for the tests only; unitool itself never sees these headers. */

#include "unitool_secret_abi_check.h"
#include "../CLibSecret/secret_abi.h"

#include <libsecret/secret.h>
#include <stddef.h>

_Static_assert(sizeof(unitool_abi_schema) == sizeof(SecretSchema), "SecretSchema's size");
_Static_assert(offsetof(unitool_abi_schema, attributes) == offsetof(SecretSchema, attributes), "SecretSchema.attributes");
_Static_assert(sizeof(unitool_abi_error) == sizeof(GError), "GError's size");
_Static_assert(sizeof(unitool_abi_list) == sizeof(GList), "GList's size");

void unitool_secret_real_abi(unitool_secret_abi_facts *facts) {
    facts->schema_size = sizeof(SecretSchema);
    facts->schema_flags_offset = offsetof(SecretSchema, flags);
    facts->schema_attributes_offset = offsetof(SecretSchema, attributes);
    facts->schema_attribute_size = sizeof(SecretSchemaAttribute);
    facts->error_size = sizeof(GError);
    facts->error_code_offset = offsetof(GError, code);
    facts->error_message_offset = offsetof(GError, message);
    facts->list_size = sizeof(GList);
    facts->list_next_offset = offsetof(GList, next);
    facts->dont_match_name = SECRET_SCHEMA_DONT_MATCH_NAME;
    facts->search_all = SECRET_SEARCH_ALL;
    facts->search_unlock = SECRET_SEARCH_UNLOCK;
    facts->search_load_secrets = SECRET_SEARCH_LOAD_SECRETS;
    facts->attribute_string = SECRET_SCHEMA_ATTRIBUTE_STRING;
    facts->error_is_locked = SECRET_ERROR_IS_LOCKED;
    facts->io_error_cancelled = G_IO_ERROR_CANCELLED;
    facts->service_none = SECRET_SERVICE_NONE;
    facts->collection_none = SECRET_COLLECTION_NONE;
    facts->collection_default = SECRET_COLLECTION_DEFAULT;
}
