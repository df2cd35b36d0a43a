#ifndef UNITOOL_PROCESS_HARDENING_H
#define UNITOOL_PROCESS_HARDENING_H

/* prctl(2) is variadic, which Swift cannot call: these wrap the two calls unitool makes. */

/* Marks the process as not dumpable: no core file, no ptrace or /proc/PID/mem by the same user. */
int unitool_set_not_dumpable(void);

/* 1 when the process is dumpable, 0 when not, -1 on error. */
int unitool_is_dumpable(void);

#include <spawn.h>

/* posix_spawn_file_actions_addclosefrom_np, which glibc declares only under _GNU_SOURCE:
   the child closes every descriptor from `lowest` on. */
int unitool_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/* posix_spawn_file_actions_addchdir_np, declared under _GNU_SOURCE too: the child starts in `path`. */
int unitool_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
