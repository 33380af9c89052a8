// scan_decoupled.cl: the fast one-pass scan for a GPU, with decoupled look-back. A work-group
// scans a tile of GROUP * PER_ITEM elements: it reads the tile coalesced into local memory, each
// work-item adds its PER_ITEM consecutive elements in registers, VEC at a time, the work-items'
// totals are scanned in local memory, and the group writes the prefix sums back out coalesced.
// Read scan_decoupled_simple.cl first: it is the same one pass (a ticket per tile, AGGREGATE then
// PREFIX published in one 64-bit word, the look-back over earlier tiles) in its plainest form.
// This kernel adds, for speed:
// - tiles of GROUP x PER_ITEM instead of one element per work-item: each work-item scans its run
//   in registers (VEC elements as one vector), and only the GROUP totals meet in local memory;
// - a whole tile read and written without a bounds check per element, through local memory padded
//   against bank conflicts (RUN_PAD);
// - a look-back that reads WINDOW earlier tiles' words at once (one word per work-item) instead of
//   one tile at a time, and tile 0 that publishes PREFIX at once.
// It also holds the three-pass variant 'registers' (scan_registers_blocks, then scan_sums.cl, then
// scan_registers_add), which scans the same tiles and writes their totals instead of looking back.
// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, EXCLUSIVE 1).
// The host builds with -D REAL=float|double|int -D EXCLUSIVE=0|1 -D GROUP=<work-group size, a power
// of two> -D PER_ITEM=<elements per work-item> -D VEC=<1, 2, 4, 8 or 16, dividing PER_ITEM>, and
// launches work-groups of GROUP. For GROUP 1 (a CPU's work-item alone) the host builds
// scan_streaming.cl instead: the same kernels in the shape a CPU wants.
//
// Map of this file: realv and its lane moves (SHIFT, UP2/4/8, LAST); scan_pairs and scan_lanes, a
// vector's lanes scanned in registers; load_mine (the tile into local memory, coalesced, then each
// work-item's run into registers), scan_mine (the run scanned in registers), scan_totals (the
// work-items' totals scanned in local memory), prefix, keep_mine and write_tile (the prefix sums
// back out through local memory, coalesced); scan_tile puts the first four together; the kernels
// scan_registers_blocks and scan_registers_add; pack, flag_of, unpack and look_back (a group's
// look-back, WINDOW tiles at a time); the kernel scan_decoupled (take a ticket, scan the tile,
// publish its total, look back, publish its prefix, write the tile).
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef EXCLUSIVE
#define EXCLUSIVE 0  // 1: exclusive scan (in[0] + ... + in[i-1]), 0: inclusive
#endif
#ifndef GROUP
#define GROUP 256  // work-group size, a power of two (for 1, scan_streaming.cl)
#endif
#ifndef PER_ITEM
#define PER_ITEM 32  // elements per work-item
#endif
#ifndef VEC
#define VEC 1  // elements added as one vector: 1, 2, 4, 8 or 16, dividing PER_ITEM
#endif

#define TILE (GROUP * PER_ITEM)
#define VECS (PER_ITEM / VEC)  // vectors per work-item
// One padding slot after every PER_ITEM elements (every 32 when PER_ITEM is smaller), so that the
// work-items of a warp reading their runs (PER_ITEM + 1 apart, an odd stride, or less than 32
// apart and moved on by the slots) hit 32 different banks of local memory.
#define RUN_PAD (PER_ITEM > 32 ? PER_ITEM : 32)
#define PAD(i) ((i) + (i) / RUN_PAD)
#define PADDED_TILE PAD(TILE)
#define PASTE(a, b) a##b
#define VECTOR(type, width) PASTE(type, width)

// realv and its lane moves, down to scan_lanes(), are the same text in scan_streaming.cl: each file
// compiles alone, and a kernel file cannot include another from a folder a student chose.
// realv: VEC elements in one value, with what the scan needs of it: SHIFT(x, first) moves x up
// one lane with `first` entering lane 0, UP2/UP4/UP8(x) move it up 2, 4 or 8 lanes with zeros
// entering, LAST(x) is its top lane and EVERY_LANE_LAST(x) that lane in every lane; FIRST_LANE
// is a select() mask of lane 0. OpenCL C writes these moves as vector literals of swizzles (of
// the sizes it allows: 1, 2, 3, 4, 8), which a CPU compiler may turn into several shuffles each;
// where the compiler has Clang's __builtin_shufflevector (PoCL's does), UP2/UP4/UP8 and
// EVERY_LANE_LAST use it and become one shuffle each. (SHIFT keeps its literal: as a builtin,
// LLVM makes it vexpandps, which AMD's AVX-512 CPUs run slowly.)
// select()'s mask has integer lanes as wide as REAL's: int for float and int, long for double.
#if FP64
#define LANE_INT long
#else
#define LANE_INT int
#endif
#if VEC == 1
typedef REAL realv;
#define VLOAD(k, p) ((p)[k])
#define VSTORE(x, k, p) ((p)[k] = (x))
#define SHIFT(x, first) (first)
#define LAST(x) (x)
#define EVERY_LANE_LAST(x) (x)
#else
typedef VECTOR(REAL, VEC) realv;
#define VLOAD(k, p) VECTOR(vload, VEC)(k, p)
#define VSTORE(x, k, p) VECTOR(vstore, VEC)(x, k, p)
#define ZEROS(width) ((VECTOR(REAL, width))0)
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define ONE_SHUFFLE 1
#endif
#endif
#if VEC == 2
#define SHIFT(x, first) ((realv)(first, (x).s0))
#define ZERO_INTS 0
#define LAST(x) ((x).s1)
#elif VEC == 4
#define SHIFT(x, first) ((realv)(first, (x).s012))
#define ZERO_INTS (VECTOR(LANE_INT, 3))0
#define LAST(x) ((x).s3)
#elif VEC == 8
#define SHIFT(x, first) ((realv)(first, (x).s012, (x).s3456))
#define ZERO_INTS (VECTOR(LANE_INT, 3))0, (VECTOR(LANE_INT, 4))0
#define LAST(x) ((x).s7)
#elif VEC == 16
#define SHIFT(x, first) ((realv)(first, (x).s012, (x).s3456, (x).s789abcde))
#define ZERO_INTS (VECTOR(LANE_INT, 3))0, (VECTOR(LANE_INT, 4))0, (VECTOR(LANE_INT, 8))0
#define LAST(x) ((x).sf)
#endif
#define FIRST_LANE ((VECTOR(LANE_INT, VEC))(-1, ZERO_INTS))
#ifdef ONE_SHUFFLE
#define EVERY_LANE_LAST(x) __builtin_shufflevector(x, x, ALL_LAST)
#if VEC == 2
#define ALL_LAST 1, 1
#elif VEC == 4
#define ALL_LAST 3, 3, 3, 3
#define UP2(x) __builtin_shufflevector(x, ZEROS(VEC), 4, 5, 0, 1)
#elif VEC == 8
#define ALL_LAST 7, 7, 7, 7, 7, 7, 7, 7
#define UP2(x) __builtin_shufflevector(x, ZEROS(VEC), 8, 9, 0, 1, 2, 3, 4, 5)
#define UP4(x) __builtin_shufflevector(x, ZEROS(VEC), 8, 9, 10, 11, 0, 1, 2, 3)
#elif VEC == 16
#define ALL_LAST 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15
#define UP2(x) \
  __builtin_shufflevector(x, ZEROS(VEC), 16, 17, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
#define UP4(x) \
  __builtin_shufflevector(x, ZEROS(VEC), 16, 17, 18, 19, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
#define UP8(x) \
  __builtin_shufflevector(x, ZEROS(VEC), 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7)
#endif
#else
#define EVERY_LANE_LAST(x) ((realv)LAST(x))
#if VEC == 4
#define UP2(x) ((realv)(ZEROS(2), (x).s01))
#elif VEC == 8
#define UP2(x) ((realv)(ZEROS(2), (x).s01, (x).s2345))
#define UP4(x) ((realv)(ZEROS(4), (x).s0123))
#elif VEC == 16
#define UP2(x) ((realv)(ZEROS(2), (x).s01, (x).s2345, (x).s6789abcd))
#define UP4(x) ((realv)(ZEROS(4), (x).s0123, (x).s456789ab))
#define UP8(x) ((realv)(ZEROS(8), (x).lo))
#endif
#endif
#endif

// The inclusive scan of one vector's lanes in log2(VEC) steps, every lane adding the lane 1, 2,
// 4 and 8 below it (on a CPU each step is one shuffle and one vector addition). `pairs` is the
// first step's result, x plus x moved up one lane.
realv scan_pairs(realv pairs) {
#if VEC >= 4
  pairs += UP2(pairs);
#endif
#if VEC >= 8
  pairs += UP4(pairs);
#endif
#if VEC >= 16
  pairs += UP8(pairs);
#endif
  return pairs;
}

realv scan_lanes(const realv x) { return scan_pairs(x + SHIFT(x, 0)); }


// This work-item's PER_ITEM consecutive elements of the tile, VECS vectors in registers: the
// group reads from `in` coalesced (GROUP consecutive elements per step) into local memory, then
// each work-item takes its own run from there.
void load_mine(__local REAL* tile, realv mine[VECS], __global const REAL* in, const ulong n,
               const ulong first, const uint t) {
  if (first + TILE <= n) {
    for (uint k = 0; k < PER_ITEM; ++k) tile[PAD(k * GROUP + t)] = in[first + k * GROUP + t];
  } else {
    for (uint k = 0; k < PER_ITEM; ++k) {
      const uint at = k * GROUP + t;
      tile[PAD(at)] = first + at < n ? in[first + at] : 0;  // past the end: 0 adds nothing
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // RUN_PAD is a multiple of VEC, so a vector never straddles a padding slot.
  for (uint k = 0; k < VECS; ++k) mine[k] = VLOAD(0, tile + PAD(t * PER_ITEM + k * VEC));
}

// The inclusive scan of the work-item's elements, in registers: each vector's lanes, plus the
// running total of the vectors before it. Returns the work-item's total. The running total waits
// for one addition per vector (the lanes' scan does not wait for it): on a CPU that chain of
// additions, not memory, would otherwise set the pace.
REAL scan_mine(realv mine[VECS]) {
  REAL running = 0;
  for (uint k = 0; k < VECS; ++k) {
    const realv lanes = scan_lanes(mine[k]);
    mine[k] = lanes + running;
    running += LAST(lanes);
  }
  return running;
}

// The work-items' totals scanned in local memory (Hillis and Steele: read, wait, write, wait, in
// every step). Returns the sum of the totals before work-item t; *group gets the tile's total.
REAL scan_totals(__local REAL* totals, const REAL mine_total, const uint t, REAL* group) {
  totals[t] = mine_total;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < GROUP; d <<= 1) {
    const REAL left = t >= d ? totals[t - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    totals[t] += left;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *group = totals[GROUP - 1];
  return t > 0 ? totals[t - 1] : 0;
}

// Vector k of the work-item's prefix sums: inclusive, or exclusive (moved up one lane, the top
// lane of the vector before entering), plus `before`.
realv prefix(const realv mine[VECS], const uint k, const REAL before) {
#if EXCLUSIVE
  return SHIFT(mine[k], k > 0 ? LAST(mine[k - 1]) : 0) + before;
#else
  return mine[k] + before;
#endif
}

// Each work-item writes its prefix sums plus `mine_before` into the tile, for write_tile.
void keep_mine(__local REAL* tile, const realv mine[VECS], const REAL mine_before, const uint t) {
  for (uint k = 0; k < VECS; ++k) {
    VSTORE(prefix(mine, k, mine_before), 0, tile + PAD(t * PER_ITEM + k * VEC));
  }
}

// The tile's prefix sums plus `before` (the sum of every tile before it) to `out`, coalesced,
// once every work-item has kept its own.
void write_tile(__global REAL* out, __local const REAL* tile, const REAL before, const ulong n,
                const ulong first, const uint t) {
  barrier(CLK_LOCAL_MEM_FENCE);
  if (first + TILE <= n) {
    for (uint k = 0; k < PER_ITEM; ++k) out[first + k * GROUP + t] = before + tile[PAD(k * GROUP + t)];
  } else {
    for (uint k = 0; k < PER_ITEM; ++k) {
      const uint at = k * GROUP + t;
      if (first + at < n) out[first + at] = before + tile[PAD(at)];
    }
  }
}

// The work-group's scan of its tile, kept in the tile for write_tile. Returns the tile's total.
REAL scan_tile(__local REAL* tile, __local REAL* totals, __global const REAL* in, const ulong n,
               const ulong first, const uint t) {
  realv mine[VECS];
  load_mine(tile, mine, in, n, first, t);
  REAL total;
  const REAL mine_before = scan_totals(totals, scan_mine(mine), t, &total);
  keep_mine(tile, mine, mine_before, t);
  return total;
}

// Pass 1 of 3: every work-group scans its own tile and writes the tile's total to sums[group].
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_registers_blocks(const ulong n, __global const REAL* in, __global REAL* out,
                           __global REAL* sums) {
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  __local REAL tile[PADDED_TILE];
  __local REAL totals[GROUP];
  const REAL total = scan_tile(tile, totals, in, n, first, t);
  write_tile(out, tile, 0, n, first, t);
  if (t == 0) sums[get_group_id(0)] = total;
}

// Pass 3 of 3: adds sums[g] (now the sum of every tile before g) to each element of tile g.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_registers_add(const ulong n, __global REAL* out, __global const REAL* sums) {
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  const REAL before = sums[get_group_id(0)];
  for (uint k = 0; k < PER_ITEM; ++k) {
    const uint at = k * GROUP + t;
    if (first + at < n) out[first + at] += before;
  }
}

// The single pass needs 64-bit atomics. A tile's state is one 64-bit word for each 32 bits of
// REAL (HALVES of them: two for a double, one for a float or an int), each holding the launch's
// stamp in its top 30 bits, the flag in the next 2 and 32 of the value's bits in the low 32, so
// that a reader never sees a flag without its value, nor a flag an earlier launch left. A double
// does not fit beside its flag in one word: each of its halves carries the flag and the stamp,
// and a reader takes the value only when both halves carry the same ones, that is, when both
// come from the same publication (a tile publishes AGGREGATE, then PREFIX, once each a launch).
// From here to unpack() the text is the same in scan_decoupled_simple.cl, scan_decoupled.cl and
// scan_streaming.cl: each kernel file compiles alone.
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define AS(type, bits) PASTE(as_, type)(bits)
#define AGGREGATE 1UL  // the tile's own total is known
#define PREFIX 2UL     // the sum of everything up to the tile's end is known
#if FP64
#define HALVES 2
#define BITS_OF(value) as_ulong(value)
#define FROM_BITS(bits) as_double(bits)
#else
#define HALVES 1
#define BITS_OF(value) ((ulong)as_uint(value))
#define FROM_BITS(bits) AS(REAL, (uint)(bits))
#endif

typedef struct {
  ulong word[HALVES];
} TileState;

// Tile `flag` and `value` as the launch stamped `stamp` publishes them.
TileState pack(const ulong stamp, const ulong flag, const REAL value) {
  TileState s;
  for (uint h = 0; h < HALVES; ++h) {
    s.word[h] = (stamp << 34) | (flag << 32) | ((BITS_OF(value) >> (32 * h)) & 0xFFFFFFFFUL);
  }
  return s;
}

// Tile j's state published (one atomic write a word), or read (one atomic read a word).
void publish(volatile __global ulong* state, const long j, const TileState s) {
  for (uint h = 0; h < HALVES; ++h) atom_xchg(&state[1 + j * HALVES + h], s.word[h]);
}
TileState read_state(volatile __global ulong* state, const long j) {
  TileState s;
  for (uint h = 0; h < HALVES; ++h) s.word[h] = atom_add(&state[1 + j * HALVES + h], 0UL);
  return s;
}

// The flag of a tile's state for the launch stamped `stamp`: 0 (not published yet) for words an
// earlier launch left, and for halves of two different publications (read again).
ulong flag_of(const TileState s, const ulong stamp) {
  ulong flag = s.word[0] >> 34 == stamp ? (s.word[0] >> 32) & 3UL : 0;
  for (uint h = 1; h < HALVES; ++h) {
    if (s.word[h] >> 32 != s.word[0] >> 32) flag = 0;
  }
  return flag;
}

REAL unpack(const TileState s) {
  ulong bits = 0;
  for (uint h = 0; h < HALVES; ++h) bits |= (s.word[h] & 0xFFFFFFFFUL) << (32 * h);
  return FROM_BITS(bits);
}
// How many tiles the look-back reads at once, one tile's state per work-item.
#define WINDOW (GROUP < 32 ? GROUP : 32)

// The look-back for tile g: the sum of every tile before it. The first WINDOW work-items each read
// the state of one of the WINDOW tiles below `unseen` at once (atomic reads); work-item 0 walks
// them from the nearest down, adding the values, until a tile that has not published (read again
// next round) or one whose flag says PREFIX (nothing further back is needed). Every work-item of
// the group gets the sum.
REAL look_back(volatile __global ulong* state, const uint g, const ulong stamp,
               __local TileState* words, __local long* unseen, __local REAL* before,
               const uint t) {
  if (t == 0) {
    *unseen = g;  // the look-back has summed every tile from *unseen to g - 1
    *before = 0;  // their sum
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  while (*unseen > 0) {
    const long end = *unseen;
    if (t < WINDOW) {
      const long j = end - 1 - (long)t;
      words[t] = j >= 0 ? read_state(state, j) : pack(stamp, PREFIX, 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
      REAL sum = *before;
      long next = end;
      for (uint k = 0; k < WINDOW; ++k) {
        const ulong flag = flag_of(words[k], stamp);
        if (flag == 0) break;  // tile end - 1 - k's group has started but not published: wait
        sum += unpack(words[k]);
        next = flag == PREFIX ? 0 : end - 1 - (long)k;
        if (flag == PREFIX) break;  // it already knows everything before it: done
      }
      *before = sum;
      *unseen = next;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return *before;
}

// One pass, decoupled look-back. The host zeroes state[] once, then numbers its launches 0, 1,
// 2, ... (`launch`), so that no launch needs it zeroed again (a fill before every launch is one
// more command, and the device idles in the gap between it and the scan).
// - state[0] counts the tickets of every launch: each launch takes the same number, counted on
//   from the last launch's. Tiles come from the ticket, not the group id, in the order groups
//   start, so a group only ever waits for tiles taken by groups that started before it and that
//   publish their tile's total without waiting for anyone.
// - state[1 + g * HALVES] on are tile g's words, stamped with L + 1 (modulo 2^30) by launch L.
// A work-group scans one tile (a CPU's work-item alone, in scan_streaming.cl, keeps taking tiles).
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_decoupled(const ulong n, __global const REAL* in, __global REAL* out,
                    volatile __global ulong* state, const ulong launch) {
  const ulong stamp = (launch + 1) & ((1UL << 30) - 1);
  const uint t = get_local_id(0);
  __local TileState words[WINDOW];
  __local long unseen;
  __local REAL before;
  __local uint taken;
  if (t == 0) taken = (uint)(atom_inc(&state[0]) - launch * get_num_groups(0));
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint g = taken;
  const ulong first = (ulong)g * TILE;
  __local REAL tile[PADDED_TILE];
  __local REAL totals[GROUP];
  const REAL total = scan_tile(tile, totals, in, n, first, t);
  // Tile 0 knows its prefix at once; any other publishes its total for later tiles to use now.
  if (t == 0) publish(state, g, pack(stamp, g == 0 ? PREFIX : AGGREGATE, total));
  const REAL sum_before = look_back(state, g, stamp, words, &unseen, &before, t);
  if (t == 0 && g > 0) publish(state, g, pack(stamp, PREFIX, sum_before + total));
  write_tile(out, tile, sum_before, n, first, t);
}
