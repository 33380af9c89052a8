// scan_tiles.cl: the fast end of the scan ladder. A work-group scans a tile of LOCAL * PER_ITEM
// elements: each work-item adds PER_ITEM consecutive elements in registers, the work-items'
// totals are scanned in local memory, and each work-item writes its elements' prefix sums.
// - scan_registers_blocks, then scan_sums.cl, then scan_registers_add: the three passes of
//   scan_blelloch.cl with these larger tiles;
// - scan_decoupled: one pass. Each group takes the next tile from a ticket, publishes its tile's
//   total, and looks back over the tiles before it for the sum of everything before its own.
// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, EXCLUSIVE 1).
// The host builds with -D REAL=float|int -D EXCLUSIVE=0|1 -D LOCAL=<work-group size, a power of
// two> -D PER_ITEM=<elements per work-item>, and launches work-groups of LOCAL.

#define TILE (LOCAL * PER_ITEM)
// One padding slot every 32 elements, so that the work-items of a warp reading their
// consecutive elements (stride PER_ITEM) hit different banks of local memory.
#define PAD(i) ((i) + (i) / 32)
#define PADDED_TILE PAD(TILE)

// This work-item's PER_ITEM consecutive elements of the tile, in registers: read from `in`
// coalesced (LOCAL consecutive elements per step) into local memory, then each work-item takes
// its own run from there.
void load_mine(__local REAL* tile, REAL mine[PER_ITEM], __global const REAL* in, const ulong n,
               const ulong first, const uint t) {
  for (uint k = 0; k < PER_ITEM; ++k) {
    const uint at = k * LOCAL + t;
    tile[PAD(at)] = first + at < n ? in[first + at] : 0;  // past the end: 0 adds nothing
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < PER_ITEM; ++k) mine[k] = tile[PAD(t * PER_ITEM + k)];
}

// The inclusive scan of the work-item's elements, in registers; returns their total.
REAL scan_mine(REAL mine[PER_ITEM]) {
  for (uint k = 1; k < PER_ITEM; ++k) mine[k] += mine[k - 1];
  return mine[PER_ITEM - 1];
}

// The work-items' totals scanned in local memory (Hillis and Steele: read, wait, write, wait, in
// every step). Returns the sum of the totals before work-item t; *group gets the tile's total.
REAL scan_totals(__local REAL* totals, const REAL mine_total, const uint t, REAL* group) {
  totals[t] = mine_total;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < LOCAL; d <<= 1) {
    const REAL left = t >= d ? totals[t - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    totals[t] += left;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *group = totals[LOCAL - 1];
  return t > 0 ? totals[t - 1] : 0;
}

// Writes the work-item's prefix sums (inclusive or exclusive) into the tile, then, once every
// work-item has, the tile plus `before` to `out`, coalesced.
void store_tile(__global REAL* out, __local REAL* tile, const REAL mine[PER_ITEM],
                const REAL mine_before, __local const REAL* before, const ulong n,
                const ulong first, const uint t) {
  for (uint k = 0; k < PER_ITEM; ++k) {
#if EXCLUSIVE
    tile[PAD(t * PER_ITEM + k)] = mine_before + (k > 0 ? mine[k - 1] : 0);
#else
    tile[PAD(t * PER_ITEM + k)] = mine_before + mine[k];
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const REAL add = before ? *before : 0;
  for (uint k = 0; k < PER_ITEM; ++k) {
    const uint at = k * LOCAL + t;
    if (first + at < n) out[first + at] = add + tile[PAD(at)];
  }
}

// Pass 1 of 3: every work-group scans its own tile and writes the tile's total to sums[group].
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_registers_blocks(const ulong n, __global const REAL* in, __global REAL* out,
                           __global REAL* sums) {
  __local REAL tile[PADDED_TILE];
  __local REAL totals[LOCAL];
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  REAL mine[PER_ITEM];
  load_mine(tile, mine, in, n, first, t);
  REAL total;
  const REAL mine_before = scan_totals(totals, scan_mine(mine), t, &total);
  store_tile(out, tile, mine, mine_before, 0, n, first, t);
  if (t == 0) sums[get_group_id(0)] = total;
}

// Pass 3 of 3: adds sums[g] (now the sum of every tile before g) to each element of tile g.
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_registers_add(const ulong n, __global REAL* out, __global const REAL* sums) {
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  const REAL before = sums[get_group_id(0)];
  for (uint k = 0; k < PER_ITEM; ++k) {
    const uint at = k * LOCAL + t;
    if (first + at < n) out[first + at] += before;
  }
}

// The single pass needs 64-bit atomics: a tile's state is one 64-bit word, the flag in the high
// half and the value's bits in the low half, so that a reader never sees a flag without its
// value.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define PASTE(a, b) a##b
#define AS(type, bits) PASTE(as_, type)(bits)
#define AGGREGATE 1UL  // the tile's own total is known
#define PREFIX 2UL     // the sum of everything up to the tile's end is known

ulong pack(const ulong flag, const REAL value) { return (flag << 32) | (ulong)as_uint(value); }

REAL unpack(const ulong word) { return AS(REAL, (uint)word); }

// One pass, decoupled look-back. state[] is zeroed by the host before each launch: state[0] is the
// ticket that hands out tiles in the order groups start, so a group only ever waits for tiles
// taken by groups that started before it and need nothing from it; state[1 + g] is tile g's word.
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_decoupled(const ulong n, __global const REAL* in, __global REAL* out,
                    volatile __global ulong* state) {
  __local REAL tile[PADDED_TILE];
  __local REAL totals[LOCAL];
  __local uint taken;
  __local REAL before_tile;
  const uint t = get_local_id(0);
  if (t == 0) taken = (uint)atom_inc(&state[0]);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint g = taken;
  const ulong first = (ulong)g * TILE;
  REAL mine[PER_ITEM];
  load_mine(tile, mine, in, n, first, t);
  REAL total;
  const REAL mine_before = scan_totals(totals, scan_mine(mine), t, &total);
  // Work-item 0 publishes the tile's total and looks back while the others write their prefix
  // sums into the tile; store_tile's barrier then hands everyone the prefix it found.
  if (t == 0) {
    REAL before = 0;
    if (g > 0) {
      atom_xchg(&state[1 + g], pack(AGGREGATE, total));  // later tiles may use it at once
      for (long j = (long)g - 1; j >= 0;) {
        const ulong word = atom_add(&state[1 + j], 0UL);  // an atomic read
        const ulong flag = word >> 32;
        if (flag == 0) continue;  // tile j's group has started but not published: wait
        before += unpack(word);
        if (flag == PREFIX) break;  // it already knows everything before it: done
        --j;
      }
    }
    atom_xchg(&state[1 + g], pack(PREFIX, before + total));
    before_tile = before;
  }
  store_tile(out, tile, mine, mine_before, &before_tile, n, first, t);
}
