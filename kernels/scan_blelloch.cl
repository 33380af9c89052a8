// scan_blelloch.cl: Blelloch's work-efficient prefix sum, first by one work-group (scan_blelloch),
// then by every work-group at once in three passes (scan_blocks, the block sums scanned by
// scan_sums.cl, scan_add).
// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, EXCLUSIVE 1).
// The host builds with -D REAL=float|double|int -D EXCLUSIVE=0|1 -D LOCAL=<work-group size, a power
// of two>. Each work-group scans tiles of 2 * LOCAL elements, two per work-item.
#ifndef REAL
#define REAL float  // element type: float, double or int
#endif
#if FP64  // REAL is double: the course notes' guard, so a device without it says so in one line
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#else
#error "--dtype double needs double precision (cl_khr_fp64), which this device does not have"
#endif
#endif
#ifndef EXCLUSIVE
#define EXCLUSIVE 0  // 1: exclusive scan (in[0] + ... + in[i-1]), 0: inclusive
#endif
#ifndef LOCAL
#define LOCAL 64  // work-group size, a power of two
#endif

#define TILE (2 * LOCAL)

// Scans tile[0 .. TILE) in place into its exclusive prefix sums and returns the tile's total.
// Up-sweep: a tree of partial sums built in place, halving the active work-items each level.
// Down-sweep: the root set to 0, then each level passes a node's prefix to its left child and
// prefix + left sum to its right child. 2 * (TILE - 1) additions in all: as few as a sequential
// loop, in 2 * log2(TILE) steps.
REAL blelloch_tile(__local REAL* tile, const uint t) {
  uint offset = 1;
  for (uint active = LOCAL; active > 0; active >>= 1) {  // up-sweep
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < active) {
      const uint left = offset * (2 * t + 1) - 1;
      const uint right = offset * (2 * t + 2) - 1;
      tile[right] += tile[left];
    }
    offset <<= 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const REAL total = tile[TILE - 1];
  barrier(CLK_LOCAL_MEM_FENCE);  // everyone has read the total before it is cleared
  if (t == 0) tile[TILE - 1] = 0;
  for (uint active = 1; active < TILE; active <<= 1) {  // down-sweep
    offset >>= 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < active) {
      // EXERCISE(down_sweep): the left child gets the node's prefix; the right child gets it plus the left sum
      const uint left = offset * (2 * t + 1) - 1;
      const uint right = offset * (2 * t + 2) - 1;
      const REAL left_sum = tile[left];
      tile[left] = tile[right];
      tile[right] += left_sum;
      // END EXERCISE
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  return total;
}

// Loads elements first + t and first + t + LOCAL of `in` (0 past n) into the tile, two coalesced
// reads per work-item, and keeps them in mine[] for an inclusive scan's last addition.
void load_tile(__local REAL* tile, REAL mine[2], __global const REAL* in, const ulong n,
               const ulong first, const uint t) {
  for (uint part = 0; part < 2; ++part) {
    const ulong i = first + t + part * LOCAL;
    mine[part] = i < n ? in[i] : 0;
    tile[t + part * LOCAL] = mine[part];
  }
}

// Writes the work-item's two elements of the scanned tile plus `carry`, within n.
void store_tile(__global REAL* out, __local const REAL* tile, const REAL mine[2], const ulong n,
                const ulong first, const REAL carry, const uint t) {
  for (uint part = 0; part < 2; ++part) {
    const uint k = t + part * LOCAL;
    if (first + k < n) {
#if EXCLUSIVE
      out[first + k] = carry + tile[k];
#else
      out[first + k] = carry + (tile[k] + mine[part]);
#endif
    }
  }
}

// One work-group walks the whole array, a tile at a time, carrying the total along.
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_blelloch(const ulong n, __global const REAL* in, __global REAL* out) {
  __local REAL tile[TILE];
  const uint t = get_local_id(0);
  REAL mine[2];
  REAL carry = 0;
  for (ulong first = 0; first < n; first += TILE) {
    load_tile(tile, mine, in, n, first, t);
    const REAL total = blelloch_tile(tile, t);
    store_tile(out, tile, mine, n, first, carry, t);
    carry += total;
    barrier(CLK_LOCAL_MEM_FENCE);  // the next tile overwrites this one
  }
}

// Pass 1 of 3: every work-group scans its own tile and writes the tile's total to sums[group].
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_blocks(const ulong n, __global const REAL* in, __global REAL* out,
                 __global REAL* sums) {
  __local REAL tile[TILE];
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  REAL mine[2];
  load_tile(tile, mine, in, n, first, t);
  const REAL total = blelloch_tile(tile, t);
  store_tile(out, tile, mine, n, first, 0, t);
  if (t == 0) sums[get_group_id(0)] = total;
}

// Pass 3 of 3: adds to every element of tile g the sum of all tiles before it (sums[g], which
// pass 2 turned into an exclusive prefix sum).
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_add(const ulong n, __global REAL* out, __global const REAL* sums) {
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  const REAL before = sums[get_group_id(0)];
  for (uint k = t; k < TILE; k += LOCAL) {
    if (first + k < n) out[first + k] += before;
  }
}
