/*
 * A CPU value as the device type of the same layout (dv), and bit-for-bit
 * equality across the two (same): what the device-source tests compare
 * with (test_gpu_ff_emu, test_gpu_pairing_emu). C++ (the tests are .cu).
 */
#ifndef CUZK_TESTS_GPU_EMU_H
#define CUZK_TESTS_GPU_EMU_H

#include <string.h>

template <class D, class T> static D dv(const T &a)
{
    static_assert(sizeof(D) == sizeof(T), "layouts differ");
    D r;
    memcpy(&r, &a, sizeof r);
    return r;
}
template <class D, class T> static bool same(const D &a, const T &b) { return memcmp(&a, &b, sizeof a) == 0; }

#endif
