/*
 * Holds a GPU's memory down to what a smaller card would have, from a
 * process of its own (so a daemon's budget is the driver's real free
 * memory, not only its config's cap):
 *   tool_gpu_hold ORDINAL LEAVE_GIB
 * allocates all of device ORDINAL's free memory but LEAVE_GIB GiB, prints
 * "holding H GiB, F GiB free" once the allocation is in place, and keeps it
 * until the process is killed. A build without CUDA says so
 * and exits 77.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef CUZK_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tool_gpu_hold ORDINAL LEAVE_GIB\n");
        return 2;
    }
#ifdef CUZK_HAVE_CUDA
    const int ordinal = atoi(argv[1]);
    const double leave = atof(argv[2]) * 1073741824.0;
    size_t f = 0, t = 0;
    if (cudaSetDevice(ordinal) != cudaSuccess || cudaFree(0) != cudaSuccess || cudaMemGetInfo(&f, &t) != cudaSuccess) {
        fprintf(stderr, "tool_gpu_hold: device %d: %s\n", ordinal, cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    if ((double)f <= leave) {
        printf("holding 0.0 GiB, %.2f GiB free (already at most %s GiB)\n", f / 1073741824.0, argv[2]);
    } else {
        /* in pieces of at most 4 GiB: one allocation of the whole may not find a range */
        size_t want = f - (size_t)leave, held = 0;
        while (want - held > 0) {
            size_t piece = want - held > ((size_t)4 << 30) ? (size_t)4 << 30 : want - held;
            void *p;
            while (piece >= ((size_t)1 << 20) && cudaMalloc(&p, piece) != cudaSuccess) cudaGetLastError(), piece /= 2;
            if (piece < ((size_t)1 << 20)) break;
            held += piece;
        }
        cudaMemGetInfo(&f, &t);
        printf("holding %.2f GiB, %.2f GiB free of %.2f\n", held / 1073741824.0, f / 1073741824.0, t / 1073741824.0);
    }
    fflush(stdout);
    for (;;) pause();
#else
    (void)argv;
    fprintf(stderr, "tool_gpu_hold: built without CUDA\n");
    return 77;
#endif
}
