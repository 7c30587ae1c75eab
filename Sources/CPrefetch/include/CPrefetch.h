#ifndef CPREFETCH_H
#define CPREFETCH_H

// Why C: Swift has no way to ask the processor to load memory ahead of its use. A static inline
// function in a header is compiled into each Swift module that calls it, where it becomes the one
// instruction (`prefetcht0` on x86-64, `prfm` on AArch64): no call is left.

/// Asks the processor to bring the cache line holding `address` into its caches, for reading
/// soon. Only a hint: it never faults, whatever `address` is, and changes no memory.
static inline void cprefetch_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
