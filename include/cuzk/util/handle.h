/*
 * cuzk_handle_new: names for objects that others keep copies of (a
 * parameter set's points, a PCE's matrices, a zkey's points kept on a GPU).
 * A copy is found again by its handle, never by the object's address: an
 * address comes back for the next object malloc puts there, a handle never
 * does, so a copy can never be taken for another object's.
 */
#ifndef CUZK_HANDLE_H
#define CUZK_HANDLE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A handle not given before in this process (1, 2, …; never 0, which
 * stands for "none"). Thread-safe. */
uint64_t cuzk_handle_new(void);

#ifdef __cplusplus
}
#endif

#endif
