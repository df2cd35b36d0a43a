#ifndef UNITOOL_CLIBSECRETHEADERS_SHIM_H
#define UNITOOL_CLIBSECRETHEADERS_SHIM_H

/* libsecret's real headers, for CLibSecretABICheck alone: unitool itself loads libsecret with
   dlopen and declares what it uses (Sources/CLibSecret/secret_abi.h). */
#include <libsecret/secret.h>

#endif
