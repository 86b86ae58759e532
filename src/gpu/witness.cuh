/*
 * The witness as the device reads it: plain (one fr_t an entry), or packed
 * (cuzk/ff/fr_packed.h: the inputs plain, the aux as 2-bit codes a word of 32
 * entries, the general values before each word, the general values), each
 * entry found on its own. The 32 GiB PoRep's aux is 4.17 GB plain and
 * 103 MB packed; its codes and counts (49 MB) mostly stay in the H100's
 * 50 MB L2, so a packed read is two cached loads, and a third for the 1.3 %
 * general entries, where a plain read is a 32-byte gather from 4 GB.
 */
#ifndef CUZK_GPU_WITNESS_CUH
#define CUZK_GPU_WITNESS_CUH

#include "cuzk/ff/fr_packed.h"
#include "ff.cuh"

namespace cuzk_gpu {

struct wit_dev {
    const fr_t *plain;                  /* the whole witness, or NULL: packed */
    const fr_t *in;                     /* packed: the ni inputs plain, */
    size_t ni;
    const unsigned long long *codes;    /* then the aux's codes, */
    const uint32_t *before;             /* general values before each word, */
    const fr_t *gen;                    /* and general values */
    fr_t one;                           /* one in the witness's form */
};

/* Entry j of a packed aux. */
static __device__ __forceinline__ fr_t wit_packed_aux(const wit_dev &w, size_t j)
{
    const unsigned long long word = __ldg(&w.codes[j >> 5]);
    const unsigned sh = 2 * (unsigned)(j & 31), code = (unsigned)(word >> sh) & 3u;
    fr_t r;
    if (code >= CUZK_FR_PACKED_GENERAL)
        r = w.gen[__ldg(&w.before[j >> 5]) + __popcll(word & 0xaaaaaaaaaaaaaaaaull & ((1ull << sh) - 1))];
    else if (code == CUZK_FR_PACKED_ONE)
        r = w.one;
    else
        f_zero(r);
    return r;
}

/* Entry i of the witness (inputs, then aux); PACKED as w is. */
template <bool PACKED> static __device__ __forceinline__ fr_t wit_get(const wit_dev &w, size_t i)
{
    if constexpr (!PACKED) return w.plain[i];
    if (i < w.ni) return w.in[i];
    return wit_packed_aux(w, i - w.ni);
}

} // namespace cuzk_gpu
#endif
