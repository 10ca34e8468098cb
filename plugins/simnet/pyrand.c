/* plugins/simnet/pyrand.c - MT19937 as CPython's _randommodule.c uses it. */
#include "pyrand.h"

#define N 624
#define M 397

static void init_genrand(struct pyrand *r, uint32_t s)
{
    r->mt[0] = s;
    for (int i = 1; i < N; i++)
        r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->mti = N;
}

static void init_by_array(struct pyrand *r, const uint32_t *key, int len)
{
    int i = 1, j = 0, k;

    init_genrand(r, 19650218u);
    for (k = (N > len ? N : len); k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] +
                   (uint32_t)j;
        i++;
        j++;
        if (i >= N) {
            r->mt[0] = r->mt[N - 1];
            i = 1;
        }
        if (j >= len)
            j = 0;
    }
    for (k = N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) -
                   (uint32_t)i;
        i++;
        if (i >= N) {
            r->mt[0] = r->mt[N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
}

void pyrand_seed(struct pyrand *r, uint64_t seed)
{
    /* CPython splits abs(seed) into 32-bit words, least significant first */
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    init_by_array(r, key, key[1] ? 2 : 1);
}

static uint32_t genrand(struct pyrand *r)
{
    static const uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    uint32_t y;

    if (r->mti >= N) {
        int kk;
        for (kk = 0; kk < N - M; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (r->mt[N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
        r->mt[N - 1] = r->mt[M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        r->mti = 0;
    }
    y = r->mt[r->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

uint32_t pyrand_bits(struct pyrand *r, int k)
{
    return genrand(r) >> (32 - k);
}

uint64_t pyrand_range(struct pyrand *r, uint64_t lo, uint64_t hi)
{
    uint64_t n = hi - lo, v;
    int k = 0;

    while (k < 32 && (n >> k))
        k++;                      /* n.bit_length() */
    if (k == 0)
        return lo;
    do
        v = pyrand_bits(r, k);
    while (v >= n);
    return lo + v;
}
