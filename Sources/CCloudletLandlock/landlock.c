#define _GNU_SOURCE
#include "cloudlet_landlock.h"

/* Landlock and capabilities are Linux's; elsewhere the Swift side calls none of these. */
#ifdef __linux__

#include <fcntl.h>
#include <sys/prctl.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/stat.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* The kernel's structures, spelt out: the installed headers may predate `scoped` (ABI 6). */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

enum { create_ruleset_version = 1, rule_path_beneath = 1 };

int cloudlet_landlock_abi(void) {
    return (int)syscall(__NR_landlock_create_ruleset, (void *)0, (size_t)0, (uint32_t)create_ruleset_version);
}

int cloudlet_landlock_create_ruleset(uint64_t handled_fs, uint64_t scoped) {
    struct ruleset_attr attr = {.handled_access_fs = handled_fs, .handled_access_net = 0, .scoped = scoped};
    size_t size = scoped ? sizeof(attr) : sizeof(attr.handled_access_fs);
    return (int)syscall(__NR_landlock_create_ruleset, &attr, size, (uint32_t)0);
}

int cloudlet_landlock_allow(int ruleset_fd, int parent_fd, uint64_t access) {
    struct path_beneath_attr attr = {.allowed_access = access, .parent_fd = parent_fd};
    return (int)syscall(__NR_landlock_add_rule, ruleset_fd, rule_path_beneath, &attr, (uint32_t)0);
}

int cloudlet_landlock_restrict_self(int ruleset_fd) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return (int)syscall(__NR_landlock_restrict_self, ruleset_fd, (uint32_t)0);
}

int cloudlet_open_path(const char *path) {
    return open(path, O_PATH | O_CLOEXEC);
}

int cloudlet_is_folder(int fd) {
    struct stat status;
    return fstat(fd, &status) == 0 && S_ISDIR(status.st_mode) ? 1 : 0;
}

int cloudlet_drop_capabilities(void) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
    for (int capability = 0; capability <= 63; capability++) {
        if (prctl(PR_CAPBSET_READ, capability, 0, 0, 0) != 1) continue;
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 && errno != EPERM) return -1;
    }
    return 0;
}

#endif
