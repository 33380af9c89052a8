// scan_decoupled_simple.cl: the scan in one pass with decoupled look-back, in its plainest form.
// The array is cut into tiles of LOCAL elements, a work-group per tile, one element per
// work-item. A group scans its tile in local memory (Hillis-Steele, as scan_hillis_steele.cl),
// but out[i] also needs the sum of every tile before its own. Three passes would write the tiles'
// sums out and start a second kernel; here the groups pass the sums to each other in state[]:
// - tile g publishes AGGREGATE and its own total as soon as it has scanned its tile;
// - it then looks back over tiles g-1, g-2, ..., adding the totals they published, until a tile
//   that says PREFIX (its value is already the sum of everything up to its end: stop there);
//   at a tile that has published nothing yet it reads again, and waits;
// - it publishes PREFIX and the sum of everything up to its own end, and writes its tile.
// Why the wait always ends (no global barrier, no promise about the order groups run in): a group
// takes its tile from a ticket (atom_inc on state[0]), not from get_group_id(0), so the tiles it
// waits on were taken by groups that have already started, and those publish their AGGREGATE
// without waiting for anyone.
// A tile's flag and value are one 64-bit word (two for a double, below), written with atom_xchg and
// read with atom_add(p, 0), so a reader never sees a flag without its value. The host zeroes
// state[] once and numbers its launches (`launch`): launch L's tickets are L * groups to (L + 1) *
// groups - 1, and its words carry the stamp L + 1 in their top 30 bits, so a word an earlier launch
// left reads as not published.
// scan_decoupled.cl is this idea tuned for speed: see its header for what it adds.
// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, EXCLUSIVE 1).
// The host builds with -D REAL=float|double|int -D EXCLUSIVE=0|1 -D LOCAL=<work-group size, a power
// of two> and launches work-groups of LOCAL, one per tile. It needs cl_khr_int64_base_atomics.
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
#define LOCAL 64  // work-group size and tile, a power of two
#endif

#define PASTE(a, b) a##b
// A tile's state is one 64-bit word for each 32 bits of
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

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void scan_decoupled_simple(const ulong n, __global const REAL* in, __global REAL* out,
                           volatile __global ulong* state, const ulong launch) {
  const ulong stamp = (launch + 1) & ((1UL << 30) - 1);
  const uint t = get_local_id(0);
  __local uint ticket;
  __local REAL tile[LOCAL];
  __local REAL before;  // the sum of every tile before this one

  // 1. The tile: the next ticket, not the group id.
  if (t == 0) ticket = (uint)(atom_inc(&state[0]) - launch * get_num_groups(0));
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint g = ticket;
  const ulong i = (ulong)g * LOCAL + t;

  // 2. The tile's inclusive scan in local memory (past n: 0, which adds nothing).
  tile[t] = i < n ? in[i] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = 1; d < LOCAL; d <<= 1) {
    const REAL left = t >= d ? tile[t - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[t] += left;
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // 3. Work-item 0 publishes the tile's total, looks back, and publishes the tile's prefix.
  if (t == 0) {
    const REAL total = tile[LOCAL - 1];
    publish(state, g, pack(stamp, AGGREGATE, total));
    REAL sum = 0;
    long j = (long)g - 1;
    while (j >= 0) {
      const TileState word = read_state(state, j);  // atomic reads
      const ulong flag = flag_of(word, stamp);
      if (flag == 0) continue;  // tile j's group has started but not published: read again
      sum += unpack(word);
      j = flag == PREFIX ? -1 : j - 1;  // a PREFIX already holds everything before it
    }
    publish(state, g, pack(stamp, PREFIX, sum + total));
    before = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 4. The prefix sums: everything before the tile, plus the tile's own.
#if EXCLUSIVE
  if (i < n) out[i] = before + (t > 0 ? tile[t - 1] : 0);
#else
  if (i < n) out[i] = before + tile[t];
#endif
}
