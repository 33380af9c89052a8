// scan_streaming.cl: the tiled scans in the shape a CPU wants: a work-group of one work-item
// (GROUP 1) that streams long runs of PER_ITEM elements straight from memory, as vectors of VEC
// lanes, with no local memory. It has the kernels of scan_decoupled.cl (read that for the GPU's
// shape, and scan_decoupled_simple.cl for the one pass in its plainest form), and the host builds
// this file instead whenever GROUP is 1:
// - scan_registers_blocks, then scan_sums.cl, then scan_registers_add: the three passes of the
//   variant 'registers', a run per tile;
// - scan_decoupled: the variant 'decoupled', one pass. A work-item keeps taking tickets until the
//   tiles run out; it sums its tile (the first read) and publishes the total, looks back over the
//   tiles before it, publishing its prefix, and writes the tile's prefix sums (the second read,
//   from its cache) in the same loop that sums the next tile from memory. A tile whose total is
//   late is summed by the looker itself (look_back_alone).
// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, EXCLUSIVE 1).
// The host builds with -D REAL=float|double|int -D EXCLUSIVE=0|1 -D GROUP=1 -D PER_ITEM=<elements
// per work-item> -D VEC=<1, 2, 4, 8 or 16, dividing PER_ITEM>.
//
// Map of this file: realv and its lane moves (SHIFT, UP2/4/8, LAST, EVERY_LANE_LAST); scan_pairs
// and scan_lanes, a vector's lanes scanned in registers; whole_vectors, sum_lanes, sum_rest and
// sum_run (the first read: the run's sum); scan_lanes_at, scan_vector and scan_run (the second
// read: its prefix sums, while the next run is summed); the kernels scan_registers_blocks and
// scan_registers_add; pack, flag_of, unpack and look_back_alone (a tile at a time, summing a late
// tile itself); the kernel scan_decoupled.
#ifndef REAL
#define REAL float  // element type: float or int
#endif
#ifndef EXCLUSIVE
#define EXCLUSIVE 0  // 1: exclusive scan (in[0] + ... + in[i-1]), 0: inclusive
#endif
#ifndef GROUP
#define GROUP 1  // work-group size: 1, a work-item alone (scan_decoupled.cl has the larger groups)
#endif
#ifndef PER_ITEM
#define PER_ITEM 65536  // elements per work-item: a tile
#endif
#ifndef VEC
#define VEC 16  // elements added as one vector: 1, 2, 4, 8 or 16, dividing PER_ITEM
#endif
#if GROUP != 1
#error "scan_streaming.cl is for work-groups of one work-item (GROUP 1): use scan_decoupled.cl"
#endif

#define TILE (GROUP * PER_ITEM)
#define VECS (PER_ITEM / VEC)  // vectors per work-item
#define PASTE(a, b) a##b
#define VECTOR(type, width) PASTE(type, width)

// realv and its lane moves, down to scan_lanes(), are the same text in scan_decoupled.cl: each file
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

// A group of one work-item (the CPU's shape: GROUP 1) has no one to coalesce with, and a CPU has
// no registers for a whole tile: it reads its run straight from `in`, twice (the second time from
// its cache), a vector at a time; where n cuts the last vector short, an element at a time.

// How many whole vectors of the run lie below n.
uint whole_vectors(const ulong n, const ulong first) {
  return first + TILE <= n ? VECS : (uint)((n - first) / VEC);
}

// The sum of a vector's lanes, halving it: (lo + hi), then its lo + hi, ...
REAL sum_lanes(const realv x) {
#if VEC == 16
  const VECTOR(REAL, 8) eight = x.lo + x.hi;
  const VECTOR(REAL, 4) four = eight.lo + eight.hi;
#elif VEC == 8
  const VECTOR(REAL, 4) four = x.lo + x.hi;
#elif VEC == 4
  const VECTOR(REAL, 4) four = x;
#endif
#if VEC >= 4
  const VECTOR(REAL, 2) two = four.lo + four.hi;
#elif VEC == 2
  const VECTOR(REAL, 2) two = x;
#endif
#if VEC == 1
  return x;
#else
  return two.lo + two.hi;
#endif
}

// The sum of the run at `first` whose first `done` vectors are already added up, VEC sums side by
// side, in `sums`: its other whole vectors, then the lanes, then the elements past the last whole
// vector. Every sum of a run is made this way, in this order, so any two agree to the last bit.
REAL sum_rest(realv sums, const uint done, __global const REAL* in, const ulong n,
              const ulong first) {
  const uint whole = whole_vectors(n, first);
  for (uint k = done; k < whole; ++k) sums += VLOAD(k, in + first);
  REAL sum = sum_lanes(sums);
  for (ulong i = first + whole * VEC; i < min(n, first + TILE); ++i) sum += in[i];
  return sum;
}

// The sum of the run: the first read.
REAL sum_run(__global const REAL* in, const ulong n, const ulong first) {
  return sum_rest(0, 0, in, n, first);
}

// The scan of vector k of `run`'s lanes. x moved up one lane is the vector one element back in
// memory with lane 0 cleared (a second load, which is cheap, instead of a shuffle, which is not
// on every CPU); the run's first vector has no element before it that it may read.
realv scan_lanes_at(__global const REAL* run, const uint k) {
  const realv x = VLOAD(k, run);
#if VEC == 1
  return x;
#else
  if (k == 0) return scan_lanes(x);
  const realv back = VLOAD(0, run + k * VEC - 1);
  return scan_pairs(x + select(back, ZEROS(VEC), FIRST_LANE));
#endif
}

// Vector k of the run's prefix sums plus `runnings` (the running total, in every lane) to `out`.
// Returns the running total after it. The lanes' scan never waits for the running total.
realv scan_vector(__global REAL* run_out, __global const REAL* run, const uint k,
                  const realv runnings) {
  const realv lanes = scan_lanes_at(run, k);
#if EXCLUSIVE
  VSTORE(SHIFT(lanes, 0) + runnings, k, run_out);
#else
  VSTORE(lanes + runnings, k, run_out);
#endif
  return runnings + EVERY_LANE_LAST(lanes);
}

// The second read: the run at `first`'s prefix sums plus `before` to `out`; and in the same loop
// the first read of the run at `next` (none when next >= n), whose sum goes to *next_sum, so that
// a core reads one run from memory while it scans another from its cache. Returns `before` plus
// the run's total.
REAL scan_run(__global REAL* out, __global const REAL* in, const REAL before, const ulong n,
              const ulong first, const ulong next, REAL* next_sum) {
  const uint whole = whole_vectors(n, first);
  const uint next_whole = next < n ? whole_vectors(n, next) : 0;
  const uint both = min(whole, next_whole);
  realv runnings = before;
  realv sums = 0;
  uint k = 0;
  for (; k < both; ++k) {
    sums += VLOAD(k, in + next);
    runnings = scan_vector(out + first, in + first, k, runnings);
  }
  for (uint j = k; j < whole; ++j) runnings = scan_vector(out + first, in + first, j, runnings);
  if (next < n) *next_sum = sum_rest(sums, k, in, n, next);

  REAL running = LAST(runnings);
  for (ulong i = first + whole * VEC; i < min(n, first + TILE); ++i) {
#if EXCLUSIVE
    out[i] = running;
    running += in[i];
#else
    running += in[i];
    out[i] = running;
#endif
  }
  return running;
}

// Pass 1 of 3: every work-group scans its own tile and writes the tile's total to sums[group].
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_registers_blocks(const ulong n, __global const REAL* in, __global REAL* out,
                           __global REAL* sums) {
  const uint t = get_local_id(0);
  const ulong first = (ulong)get_group_id(0) * TILE;
  REAL none;
  const REAL total = scan_run(out, in, 0, n, first, n, &none);
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


// The look-back of a work-item alone: the sum of every tile before g, walking
// back from g - 1 until a PREFIX. A tile whose total is still not published after PATIENCE reads
// is summed here from `in` instead (the same additions in the same order as its own work-item's,
// so the same total to the last bit): a core never waits long for another that its system has
// paused or slowed down. (--build-options "-D PATIENCE=0" sums every tile back to a PREFIX here:
// a test runs that path.)
#ifndef PATIENCE
#define PATIENCE 64
#endif
REAL look_back_alone(volatile __global ulong* state, __global const REAL* in, const ulong n,
                     const uint g, const ulong stamp) {
  REAL before = 0;
  for (long j = (long)g - 1; j >= 0; --j) {
    TileState s = pack(0, 0, 0);  // flag 0: not published
    for (uint reads = 0; reads < PATIENCE && flag_of(s, stamp) == 0; ++reads) {
      s = read_state(state, j);
    }
    const ulong flag = flag_of(s, stamp);
    before += flag == 0 ? sum_run(in, n, (ulong)j * TILE) : unpack(s);
    if (flag == PREFIX) break;
  }
  return before;
}

// One pass, decoupled look-back. The host zeroes state[] once, then numbers its launches 0, 1,
// 2, ... (`launch`), so that no launch needs it zeroed again (a fill before every launch is one
// more command, and the device idles in the gap between it and the scan).
// - state[0] counts the tickets of every launch: each launch takes the same number, counted on
//   from the last launch's. Tiles come from the ticket, not the group id, in the order groups
//   start, so a group only ever waits for tiles taken by groups that started before it and that
//   publish their tile's total without waiting for anyone.
// - state[1 + g * HALVES] on are tile g's words, stamped with L + 1 (modulo 2^30) by launch L.
// A work-item alone keeps taking tickets until the tiles run out (a GPU's work-group, in
// scan_decoupled.cl, scans one tile), and scans its tile from cache while it reads the next one
// from memory (one pass of a core over the two: its reads and writes then overlap as a copy's do).
// Every work-item takes one ticket too many, so a launch takes tiles + work-items tickets.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void scan_decoupled(const ulong n, __global const REAL* in, __global REAL* out,
                    volatile __global ulong* state, const ulong launch) {
  const ulong stamp = (launch + 1) & ((1UL << 30) - 1);
  const uint tiles = (uint)((n + TILE - 1) / TILE);
  const ulong base = launch * (tiles + get_global_size(0));
  uint g = (uint)(atom_inc(&state[0]) - base);
  REAL total = 0;
  if (g < tiles) {
    total = sum_run(in, n, (ulong)g * TILE);
    publish(state, g, pack(stamp, g == 0 ? PREFIX : AGGREGATE, total));
  }
  while (g < tiles) {
    const REAL sum_before = look_back_alone(state, in, n, g, stamp);
    if (g > 0) publish(state, g, pack(stamp, PREFIX, sum_before + total));
    const uint next = (uint)(atom_inc(&state[0]) - base);  // a later tile than g: never tile 0
    REAL next_total = 0;
    scan_run(out, in, sum_before, n, (ulong)g * TILE, next < tiles ? (ulong)next * TILE : n,
             &next_total);
    if (next < tiles) publish(state, next, pack(stamp, AGGREGATE, next_total));
    g = next;
    total = next_total;
  }
}
