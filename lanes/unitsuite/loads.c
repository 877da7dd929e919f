/* An rtld-audit module (LD_AUDIT) for the unit-suite lane: every object
 * named .../libhost_runtime.so that a process loads, whichever way (dlopen,
 * DT_NEEDED), appends its path as a line to $SIMABI_LOADS_FILE. The lane's
 * pytest plugin (simabi_unitsuite_loads.py) watches that file grow to tell
 * which tests loaded a host runtime, in the test process or in a child. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned int la_version(unsigned int version)
{
    return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    static const char suffix[] = "/libhost_runtime.so";
    const char *name = map->l_name, *path = getenv("SIMABI_LOADS_FILE");
    size_t n = strlen(name), k = sizeof suffix - 1;
    (void)lmid;
    (void)cookie;
    if (path != NULL && n >= k && strcmp(name + n - k, suffix) == 0) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            /* One write: lines of concurrent processes do not interleave. */
            char line[4096];
            size_t m = n < sizeof line - 1 ? n : sizeof line - 1;
            memcpy(line, name, m);
            line[m] = '\n';
            if (write(fd, line, m + 1) < 0) {
                /* Nothing to do: the count is best effort. */
            }
            close(fd);
        }
    }
    return 0;
}
