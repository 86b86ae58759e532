/* Shared between the cs sources only. */
#ifndef CUZK_CS_INTERNAL_H
#define CUZK_CS_INTERNAL_H
#include "cuzk/cs/cs.h"
void cuzk_cs_base_init(cuzk_cs *cs, const cuzk_cs_vtable *vt, bool needs_values, bool wants_names);
/* Variables a child shares with the parent it is extended into: its first
 * shared_inputs inputs (at least ONE) and shared_aux aux keep their index. */
static inline size_t cs_shared_inputs(const cuzk_cs *c) { return c->shared_inputs ? c->shared_inputs : 1; }
static inline size_t cs_shared_aux(const cuzk_cs *c) { return c->shared_aux; }
#endif
