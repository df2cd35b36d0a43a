#ifndef UNITOOL_SECRET_ABI_CHECK_H
#define UNITOOL_SECRET_ABI_CHECK_H

#include "unitool_secret.h"

/* The sizes, offsets and constants of libsecret's and GLib's real headers, for KeyringTests to
   compare with unitool_secret_assumed_abi. */
void unitool_secret_real_abi(unitool_secret_abi_facts *facts);

#endif
