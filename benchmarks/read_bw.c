/* One core's read bandwidth: a vectorised sum over one array, the second
 * reference for roofline's DRAM load figure beside likwid-bench.
 *
 *   gcc -O3 -march=native -fopenmp-simd read_bw.c -o read_bw
 *   ./read_bw [bytes] [ntimes] [huge]
 *
 * With "huge" the array is 2 MiB aligned and advised to use transparent
 * huge pages (madvise), as numpy and PyTorch do for large arrays (and so
 * roofline's own buffers); without it it uses 4 KiB pages, as likwid-bench
 * does. On a Zen 4 VM one core read 18.8 GB/s with 4 KiB pages and
 * 29.5 GB/s with huge pages: the page size is most of the difference
 * between roofline's figure and likwid-bench's.
 *
 * Prints one line: "read_bytes_s <best> median_bytes_s <median> bytes <n> huge <0|1> check <sum>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sum(const double *x, long n) {
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

int main(int argc, char **argv) {
    long bytes = argc > 1 ? atol(argv[1]) : 128L << 20;
    int ntimes = argc > 2 ? atoi(argv[2]) : 10;
    int huge = argc > 3 && strcmp(argv[3], "huge") == 0;
    long n = bytes / (long)sizeof(double);
    if (n < 1024 || ntimes < 2) {
        fprintf(stderr, "usage: read_bw [bytes >= 8192] [ntimes >= 2] [huge]\n");
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
    double *rates = malloc(ntimes * sizeof(double));
    double check = 0.0;
    for (int k = 0; k < ntimes; k++) {
        double t = now();
        check += sum(x, n);
        rates[k] = 8.0 * (double)n / (now() - t);
    }
    qsort(rates + 1, ntimes - 1, sizeof(double), cmp); /* first pass is warm-up */
    printf("read_bytes_s %.6e median_bytes_s %.6e bytes %ld huge %d check %g\n",
           rates[ntimes - 1], rates[1 + (ntimes - 1) / 2], n * 8, huge, check);
    free(rates);
    free(x);
    return 0;
}
