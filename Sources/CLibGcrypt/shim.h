#ifndef UNITOOL_CLIBGCRYPT_SHIM_H
#define UNITOOL_CLIBGCRYPT_SHIM_H

/* libgcrypt: the hashes and HMACs unitool needs (TOTP, digests of files and answers). A small
   library that libsecret uses too, so every system with a keyring has it (Debian: libgcrypt20-dev,
   which libsecret-1-dev depends on). */
#include <gcrypt.h>

#endif
