/* Internal to src/ff: back-end dispatch state shared by fp.c and fr.c. */
#ifndef CUZK_SRC_FF_INTERNAL_H
#define CUZK_SRC_FF_INTERNAL_H

#include <stdbool.h>

/* True while the BMI2/ADX multiplication is selected (see cuzk/ff/ff.h). */
extern bool cuzk_ff_adx_on;

#endif
