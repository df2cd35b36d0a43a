#include "process_hardening.h"

#include <sys/prctl.h>

int unitool_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int unitool_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
