/*
 * The job journal: which job ids this daemon accepted and which of them
 * finished, in an append-only file, so that a daemon restarted after a
 * crash can tell a client that a job it accepted was lost (and must be
 * resubmitted) instead of "no such job". Results are not kept: a job that
 * finished before the crash is simply unknown afterwards, never "lost".
 *
 * <dir>/cuzk-journal, one record per line, each with its own checksum:
 *   cuzk-journal 1                      the header
 *   A <accepted ms> <hex id> <fnv>      accepted (a new job, or a new attempt)
 *   D <hex id> <fnv>                    finished (any outcome)
 *   L <accepted ms> <lost ms> <hex id> <fnv>   lost in a restart at <lost ms>
 * A record is appended with one write(2) (a killed process loses none that
 * returned); an accepted id is fsync'ed before SubmitProof answers. At open
 * the file is read (a torn last line or a garbled one is skipped and
 * logged, never fatal), every id accepted and not finished becomes lost,
 * and the file is rewritten (temporary, fsync, rename) holding only the
 * lost ids, the newest JOURNAL_MAX_LOST of them. It is compacted the same
 * way (open and lost ids only) whenever it grows past a bound. flock keeps
 * a second daemon off the same file.
 */
#ifndef CUZK_SERVER_JOURNAL_H
#define CUZK_SERVER_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOURNAL_MAX_LOST 4096

typedef struct srv_journal srv_journal;

/* Opens (or creates) dir's journal and reads what an earlier run left.
 * log(level as cfg_log_level, msg) hears about garbled records and the
 * lost jobs. NULL with a reason in err when dir is unusable or another
 * process holds the journal. */
srv_journal *journal_open(const char *dir, void (*log)(int level, const char *msg), char *err, size_t errlen);
void journal_close(srv_journal *j); /* NULL-safe */

/* Records (one write each; no fsync: journal_sync). Thread-safe, cheap
 * enough to be called under the engine's lock. */
void journal_accepted(srv_journal *j, const char *id);
void journal_finished(srv_journal *j, const char *id);
/* fsync of what was appended, and a compaction when the file has grown
 * past its bound; outside any other lock. */
void journal_sync(srv_journal *j);

/* For an id an earlier run accepted and never finished: a malloc'd
 * "job <id> was accepted at <T1> and lost when the daemon restarted at
 * <T2>: resubmit it"; NULL otherwise. */
char *journal_lost(srv_journal *j, const char *id);
size_t journal_lost_count(srv_journal *j);
const char *journal_path(const srv_journal *j);

#endif
