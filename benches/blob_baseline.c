/*
 * The bare loop litebench's `files` engine is measured against (docs/files-engine.md):
 * one blob in one file, OPS operations, each a read (pread of the whole file) with probability
 * READ_RATIO or a write (pwrite of new content + fdatasync), the same content generator and
 * checksum as the `blob` workload (src/workload/blob/content.rs), outside nothing: the whole
 * process is what is timed, from outside, against
 *
 *   litebench run blob --engine files --knob durability=data --trials 1 --warmup 0 \
 *     --param warmup_time=0 --param operations=OPS --param size=SIZE --param read_ratio=R
 *
 * Build: cc -O2 -o blob_baseline benches/blob_baseline.c
 * Run:   ./blob_baseline DIR SIZE OPS READ_RATIO   (creates and removes DIR/baseline.blob)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t wyrand(uint64_t *s) {
    *s += 0xa0761d6478bd642full;
    unsigned __int128 t = (unsigned __int128)*s * (*s ^ 0xe7037ed1a0b428dbull);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

static void fill(unsigned char *buf, size_t n, uint64_t seed) {
    uint64_t s = seed;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = wyrand(&s);
        memcpy(buf + i, &w, 8);
    }
    uint64_t w = wyrand(&s);
    memcpy(buf + i, &w, n - i);
}

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static uint64_t checksum(const unsigned char *d, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, d + i, 8);
        h = (rotl(h, 23) ^ w) * 0x9E3779B97F4A7C15ull;
    }
    for (; i < n; i++) h = (rotl(h, 23) ^ d[i]) * 0x9E3779B97F4A7C15ull;
    uint64_t s = h;
    return splitmix(&s) | 1;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR SIZE OPS READ_RATIO\n", argv[0]);
        return 2;
    }
    size_t size = strtoull(argv[2], NULL, 10);
    long ops = strtol(argv[3], NULL, 10);
    double ratio = strtod(argv[4], NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/baseline.blob", argv[1]);
    unsigned char *wbuf = malloc(size), *rbuf = malloc(size);
    if (!wbuf || !rbuf) die("malloc");
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (fd < 0) die(path);
    fill(wbuf, size, 1);
    if (pwrite(fd, wbuf, size, 0) != (ssize_t)size) die("pwrite");
    if (fdatasync(fd) != 0) die("fdatasync");
    uint64_t expected = checksum(wbuf, size), rng = 42, version = 0;
    for (long i = 0; i < ops; i++) {
        double p = (double)(splitmix(&rng) >> 11) / 9007199254740992.0;
        if (p < ratio) {
            if (pread(fd, rbuf, size, 0) != (ssize_t)size) die("pread");
            if (checksum(rbuf, size) != expected) {
                fprintf(stderr, "read %ld: wrong checksum\n", i);
                return 1;
            }
        } else {
            fill(wbuf, size, 1000 + ++version);
            expected = checksum(wbuf, size);
            if (pwrite(fd, wbuf, size, 0) != (ssize_t)size) die("pwrite");
            if (fdatasync(fd) != 0) die("fdatasync");
        }
    }
    close(fd);
    unlink(path);
    printf("%ld operations of %zu bytes\n", ops, size);
    return 0;
}
