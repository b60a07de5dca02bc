#ifndef CLOUDLET_LANDLOCK_H
#define CLOUDLET_LANDLOCK_H

#include <stdint.h>

/// The Landlock ABI version the kernel offers, or -1 (with errno) if it offers none.
int cloudlet_landlock_abi(void);

/// A new ruleset handling the file access rights in `handled_fs` and the scopes in `scoped` (0 before
/// ABI 6). Returns its descriptor, or -1 with errno.
int cloudlet_landlock_create_ruleset(uint64_t handled_fs, uint64_t scoped);

/// Allows `access` beneath the file or folder open as `parent_fd` (an O_PATH descriptor). 0 or -1 with errno.
int cloudlet_landlock_allow(int ruleset_fd, int parent_fd, uint64_t access);

/// Opens `path` as an O_PATH descriptor (for a rule), or -1 with errno.
int cloudlet_open_path(const char *path);

/// 1 when `fd` is a folder, else 0 (a rule on a file may grant file rights only).
int cloudlet_is_folder(int fd);

/// Sets no_new_privs and restricts the calling thread (and what it executes) to the ruleset. 0 or -1 with errno.
int cloudlet_landlock_restrict_self(int ruleset_fd);

/// Empties the capability bounding set and the ambient set, so that what this process executes next
/// holds no capability, even as root. 0 or -1 with errno (without CAP_SETPCAP, a non-root process
/// has none to drop: that is not an error).
int cloudlet_drop_capabilities(void);

#endif
