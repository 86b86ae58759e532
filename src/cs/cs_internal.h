/* Shared between the cs sources only. */
#ifndef CUZK_CS_INTERNAL_H
#define CUZK_CS_INTERNAL_H
#include "cuzk/cs.h"
void cuzk_cs_base_init(cuzk_cs *cs, const cuzk_cs_vtable *vt, bool needs_values, bool wants_names);
#endif
