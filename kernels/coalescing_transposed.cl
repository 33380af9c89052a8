// coalescing_transposed.cl: the row-scan program on transposed data. The host transposes A into
// At (width x height), this kernel scans "rows" that are now columns: work-item i reads At[j][i]
// and writes Bt[j][i], so in every step neighbouring work-items touch neighbouring addresses
// (coalesced), and the host transposes Bt back into B. Interchanging the loops is legal because
// the dependence is carried by j only: each i's chain stays in order, in one work-item.
// Indices: i the original row (a column of At), j walks it.
#ifndef REAL
#define REAL float  // element type: float or int
#endif

__kernel void coalescing_transposed(const int height, const int width, __global const REAL* At,
                                    __global REAL* Bt) {
  const int i = get_global_id(0);
  if (i >= height) return;
  REAL accum = 0;
  for (int j = 0; j < width; ++j) {
    const REAL a = At[j * height + i];
    accum = a * a - accum;
    Bt[j * height + i] = accum;
  }
}
