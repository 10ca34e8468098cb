/* plugins/simnet/pyrand.h - Python's random.Random, for the few calls the
 * fixture generator makes (seed(int), randrange).  With it the default
 * simulated network has the very MAC addresses and connection ports that
 * ../shared/fixtures/gen_topology.py prints, so GET v3/ matches it byte for
 * byte.  MT19937 with Python's init_by_array seeding. */
#ifndef SIMNET_PYRAND_H
#define SIMNET_PYRAND_H

#include <stdint.h>

struct pyrand {
    uint32_t mt[624];
    int mti;
};

/* random.Random(seed) for a non-negative integer seed. */
void pyrand_seed(struct pyrand *r, uint64_t seed);
/* random.getrandbits(k), 1 <= k <= 32. */
uint32_t pyrand_bits(struct pyrand *r, int k);
/* random.randrange(lo, hi), lo < hi, hi - lo < 2^32. */
uint64_t pyrand_range(struct pyrand *r, uint64_t lo, uint64_t hi);

#endif
