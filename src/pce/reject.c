/* Setting a PCE file aside: "<path>.rejected" for a file whose checks
 * failed, under the circuit's "<path>.lock" (flock). Below both the cache
 * (cache.c, which finds a bad file on a locked load) and the background
 * verifier (verify.c, which finds one after the load returned): neither
 * calls the other. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pce_internal.h"

int pce_lock_take(int fd, bool wait)
{
    for (;;) {
        if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0) return 0;
        if (errno != EINTR) return -1;
    }
}

bool pce_set_aside(const char *path, uint64_t dev, uint64_t ino, const cuzk_pce_error *why, bool lock)
{
    char aside[PATH_MAX], lp[PATH_MAX];
    if (snprintf(aside, sizeof aside, "%s.rejected", path) >= (int)sizeof aside ||
        snprintf(lp, sizeof lp, "%s.lock", path) >= (int)sizeof lp)
        return false;
    int lfd = -1;
    if (lock) {
        lfd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (lfd < 0 || pce_lock_take(lfd, true) != 0) {
            pce_logf("%s (%s); cannot lock %s to set it aside (%s)", why->msg, cuzk_pce_fail_name(why->fail), lp,
                     strerror(errno));
            if (lfd >= 0) close(lfd);
            return false;
        }
    }
    bool done = false;
    struct stat st;
    if ((dev || ino) && (stat(path, &st) != 0 || (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino)) {
        /* replaced meanwhile (re-extracted by someone else): not ours to move */
        pce_logf("%s (%s); the file was replaced meanwhile, left alone", why->msg, cuzk_pce_fail_name(why->fail));
    } else if (rename(path, aside) == 0) {
        PCE_COUNT(set_aside, 1);
        pce_logf("%s (%s); set aside as %s, re-extracting", why->msg, cuzk_pce_fail_name(why->fail), aside);
        done = true;
    } else {
        pce_logf("%s (%s); cannot set it aside (%s), re-extracting", why->msg, cuzk_pce_fail_name(why->fail),
                 strerror(errno));
    }
    if (lfd >= 0) close(lfd);
    return done;
}
