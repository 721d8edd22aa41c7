/* One core's read bandwidth, the second reference for roofline's load
 * figures beside likwid-bench: vector loads, each handed to an empty
 * asm volatile (as likwid-bench's load_* kernels and roofline's own load
 * kernel do), so no ALU op is spent on the data and the load ports are the
 * only limit inside L1.
 *
 *   gcc -O3 -march=native read_bw.c -o read_bw
 *   ./read_bw [bytes] [ntimes] [huge|small] [streams]
 *
 * "huge": the array is 2 MiB aligned and advised to use transparent huge
 * pages (madvise), as numpy and PyTorch do for large arrays (and so
 * roofline's own buffers); "small" (the default) uses 4 KiB pages, as
 * likwid-bench does. On a Zen 4 VM one core read 18.8 GB/s from DRAM with
 * 4 KiB pages and 29.5 GB/s with huge pages.
 *
 * streams (1, 2, 4 or 8): how many sequential streams are read at once, each over an equal
 * part of the array (default 1). roofline's load kernel reads two half
 * streams; on a Zen 3 VM one core read 18-20 GB/s from DRAM with one stream
 * and 22-24 GB/s with two (likwid-bench load_avx against ddot_avx alike).
 *
 * Each timing reads the array enough times to read at least 256 MiB, so
 * L1-sized arrays are timed over milliseconds, not microseconds, after
 * 0.3 s of untimed reading: the first milliseconds after an idle spell ran
 * 20-50 % slow on a Zen 3 VM (the host raising the core's clock).
 *
 * Prints one line: "read_bytes_s <best> median_bytes_s <median> bytes <n>
 * huge <0|1> streams <s>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__AVX512F__)
#define VBYTES 64
#elif defined(__AVX__)
#define VBYTES 32
#else
#define VBYTES 16
#endif
#define LANES (VBYTES / 8)
#define UNROLL 4 /* vectors per stream per step */

typedef double vec __attribute__((vector_size(VBYTES), aligned(VBYTES)));

#if defined(__x86_64__) || defined(__i386__)
#define SINK(v) __asm__ volatile("" ::"x"(v) : "memory")
#else
#define SINK(v) __asm__ volatile("" ::"w"(v) : "memory")
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reads x[0 : streams * part] as `streams` concurrent sequential streams
 * (inlined with a constant `streams`, so the stream loop is unrolled). */
static inline __attribute__((always_inline)) void load_n(const double *x, long part, const int streams,
                                                         long reps) {
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < part; i += UNROLL * LANES)
            for (int s = 0; s < streams; s++) {
                const vec *p = (const vec *)(x + s * part + i);
                SINK(p[0]);
                SINK(p[1]);
                SINK(p[2]);
                SINK(p[3]);
            }
}

static void load(const double *x, long part, int streams, long reps) {
    switch (streams) {
    case 1: load_n(x, part, 1, reps); break;
    case 2: load_n(x, part, 2, reps); break;
    case 4: load_n(x, part, 4, reps); break;
    default: load_n(x, part, 8, reps); break;
    }
}

int main(int argc, char **argv) {
    long bytes = argc > 1 ? atol(argv[1]) : 128L << 20;
    int ntimes = argc > 2 ? atoi(argv[2]) : 10;
    int huge = argc > 3 && strcmp(argv[3], "huge") == 0;
    int streams = argc > 4 ? atoi(argv[4]) : 1;
    long step = (long)streams * UNROLL * LANES;
    long n = bytes / (long)sizeof(double) / (step > 0 ? step : 1) * step;
    if ((streams != 1 && streams != 2 && streams != 4 && streams != 8) || n < 1024 || ntimes < 2) {
        fprintf(stderr, "usage: read_bw [bytes >= 8192] [ntimes >= 2] [huge|small] [streams 1|2|4|8]\n");
        return 2;
    }
    double *x;
    if (posix_memalign((void **)&x, huge ? (size_t)2 << 20 : 64, n * sizeof(double))) {
        fprintf(stderr, "read_bw: cannot allocate %ld bytes\n", bytes);
        return 1;
    }
    if (huge)
        madvise(x, n * sizeof(double), MADV_HUGEPAGE);
    for (long i = 0; i < n; i++)
        x[i] = 1.0;
    long reps = (256L << 20) / (n * 8) + 1;
    for (double t0 = now(); now() - t0 < 0.3;)
        load(x, n / streams, streams, reps);
    double *rates = malloc(ntimes * sizeof(double));
    for (int k = 0; k < ntimes; k++) {
        double t = now();
        load(x, n / streams, streams, reps);
        rates[k] = 8.0 * (double)n * reps / (now() - t);
    }
    qsort(rates + 1, ntimes - 1, sizeof(double), cmp); /* first pass is warm-up */
    printf("read_bytes_s %.6e median_bytes_s %.6e bytes %ld huge %d streams %d\n",
           rates[ntimes - 1], rates[1 + (ntimes - 1) / 2], n * 8, huge, streams);
    free(rates);
    free(x);
    return 0;
}
