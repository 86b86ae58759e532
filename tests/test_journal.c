/*
 * The job journal (src/server/journal.c) on its own, in a fresh directory,
 * with random ids (any byte but NUL, 1-256 bytes) from a printed seed:
 * - ids accepted and not finished when the journal is closed without a
 *   word (what a kill leaves: every record was written) are lost after a
 *   reopen, and only those; the message names the id and says resubmit;
 * - a lost id accepted again is open, and once finished is forgotten;
 * - the file stays bounded under many jobs (compaction), lost ids kept;
 * - at most JOURNAL_MAX_LOST lost ids are kept, the newest;
 * - a garbled line and a torn last line are skipped and logged, the rest read;
 * - a second open of the same journal is refused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/journal.h"
#include "testutil.h"

static cuzk_rng rng;
static char logged[4096];

static void cap_log(int level, const char *msg)
{
    (void)level;
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%s\n", msg);
}

static char *rand_id(void)
{
    size_t n = 1 + cuzk_rng_u64(&rng) % 256;
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = (char)(1 + cuzk_rng_u64(&rng) % 255);
    s[n] = '\0';
    return s;
}

static srv_journal *reopen(const char *dir)
{
    char err[512];
    logged[0] = '\0';
    srv_journal *j = journal_open(dir, cap_log, err, sizeof err);
    CHECK_MSG(j != NULL, "journal_open: %s", err);
    return j;
}

static bool is_lost(srv_journal *j, const char *id)
{
    char *m = journal_lost(j, id);
    bool lost = m && strstr(m, id) && strstr(m, "lost in a restart at ") && strstr(m, "resubmit");
    CHECK_MSG(!m || lost, "lost message: %s", m);
    free(m);
    return lost;
}

int main(void)
{
    tu_init(&rng, "test_journal");
    char dir[] = "/tmp/cuzk_journal_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/cuzk-journal", dir);

    /* accepted, some finished, closed unannounced */
    srv_journal *j = reopen(dir);
    if (!j) return tu_finish("test_journal");
    char err[512];
    CHECK(journal_open(dir, cap_log, err, sizeof err) == NULL && strstr(err, "another"));
    size_t n = 20 + cuzk_rng_u64(&rng) % 60;
    char **ids = calloc(n, sizeof *ids);
    bool *done = calloc(n, sizeof *done);
    size_t open_n = 0;
    for (size_t i = 0; i < n; i++) {
        ids[i] = rand_id();
        journal_accepted(j, ids[i]);
        if (cuzk_rng_u64(&rng) % 3 == 0) journal_sync(j);
    }
    for (size_t i = 0; i < n; i++) {
        done[i] = cuzk_rng_u64(&rng) % 2;
        if (done[i]) journal_finished(j, ids[i]);
        else open_n++;
    }
    CHECK(journal_lost_count(j) == 0);
    journal_close(j);

    j = reopen(dir);
    CHECK_MSG(journal_lost_count(j) == open_n, "%zu lost, %zu open before", journal_lost_count(j), open_n);
    for (size_t i = 0; i < n; i++) CHECK_MSG(is_lost(j, ids[i]) == !done[i], "id %zu (done %d)", i, done[i]);
    char *never = rand_id();
    CHECK(!is_lost(j, never));
    /* a lost id resubmitted and finished: forgotten */
    size_t again = n;
    for (size_t i = 0; i < n && again == n; i++)
        if (!done[i]) again = i;
    if (again < n) {
        journal_accepted(j, ids[again]);
        CHECK(!is_lost(j, ids[again]));
        journal_finished(j, ids[again]);
        done[again] = true;
        open_n--;
    }

    /* bounded: thousands of long ids through it, synced as SubmitProof does */
    size_t cycles = 3000 + cuzk_rng_u64(&rng) % 2000, biggest = 0;
    for (size_t c = 0; c < cycles; c++) {
        char id[257];
        int k = snprintf(id, sizeof id, "cycle-%zu-", c);
        memset(id + k, 'a' + (int)(c % 26), 256 - (size_t)k); /* 256 bytes: the longest records */
        id[256] = '\0';
        journal_accepted(j, id);
        if (c % 4 == 0) journal_sync(j); /* compaction happens here; fewer fsyncs keep the test quick */
        journal_finished(j, id);
        struct stat st;
        if (stat(path, &st) == 0 && (size_t)st.st_size > biggest) biggest = (size_t)st.st_size;
    }
    CHECK_MSG(biggest <= (2u << 20), "journal grew to %zu bytes over %zu jobs", biggest, cycles);
    for (size_t i = 0; i < n; i++) CHECK(is_lost(j, ids[i]) == !done[i]);
    journal_close(j);

    /* garbled and torn lines: skipped and logged; the rest read */
    FILE *f = fopen(path, "ab");
    if (f) {
        fputs("L 12 34 zz 00000000\n", f);
        fputs("A 1733339000000 6869", f); /* torn */
        fclose(f);
    }
    j = reopen(dir);
    CHECK_MSG(strstr(logged, "1 unreadable lines") && strstr(logged, "torn"), "%s", logged);
    CHECK(journal_lost_count(j) == open_n);
    for (size_t i = 0; i < n; i++) CHECK(is_lost(j, ids[i]) == !done[i]);

    /* the newest JOURNAL_MAX_LOST lost ids are kept */
    size_t extra = 1 + cuzk_rng_u64(&rng) % 50;
    for (size_t i = 0; i < JOURNAL_MAX_LOST + extra; i++) {
        char id[32];
        snprintf(id, sizeof id, "bulk-%zu", i);
        journal_accepted(j, id);
    }
    journal_close(j);
    j = reopen(dir);
    CHECK_MSG(journal_lost_count(j) == JOURNAL_MAX_LOST, "%zu lost kept", journal_lost_count(j));
    for (size_t i = 0; i < n; i++) CHECK(!is_lost(j, ids[i])); /* older than every bulk id */
    journal_close(j);

    /* random bytes: read as garbage, not fatal */
    f = fopen(path, "wb");
    size_t len = 1 + cuzk_rng_u64(&rng) % 4096;
    for (size_t i = 0; f && i < len; i++) fputc((int)(cuzk_rng_u64(&rng) & 0xff), f);
    if (f) fclose(f);
    j = reopen(dir);
    CHECK(j && journal_lost_count(j) == 0);
    journal_close(j);

    for (size_t i = 0; i < n; i++) free(ids[i]);
    free(ids);
    free(done);
    free(never);
    unlink(path);
    rmdir(dir);
    return tu_finish("test_journal");
}
