// memory_spaces_rows.cl: Y = B A, where every work-group needs each whole row of B in turn. The
// group copies row j of B into local memory once, and each work-item reads all of it from there
// instead of from global memory: once with async_work_group_copy (the runtime's copy, waited for
// with wait_group_events), once with a copy the work-items share by hand.
// Indices: i the column of Y and of A (one per work-item); j the row of Y and of B; k along a row
// of B. Row-major A (K x M), B (R x K), Y (R x M); `row` holds K floats of local memory. The
// NDRange over i is padded to whole work-groups: padding work-items (i >= M) help copy and reach
// every barrier, but compute nothing. Built with -D BARRIER=0 to leave the barriers out.
#ifndef BARRIER
#define BARRIER 1
#endif

// Row j of Y at column i: the K floats of row j of B, staged in local memory, times column i of
// A. Both kernels compute this; they differ only in how the row gets into local memory.
float row_times_column(const int K, __local const float* row, __global const float* A,
                       const int M, const int i) {
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) sum += row[k] * A[(size_t)k * M + i];
  return sum;
}

__kernel void rows_async(const int M, const int R, const int K, __global const float* A,
                         __global const float* B, __global float* Y, __local float* row) {
  const int i = get_global_id(0);
  for (int j = 0; j < R; ++j) {
    // Every work-item of the group makes the same call; the copy is the group's.
    event_t copied = async_work_group_copy(row, B + (size_t)j * K, (size_t)K, 0);
    wait_group_events(1, &copied);
    if (i < M) Y[(size_t)j * M + i] = row_times_column(K, row, A, M, i);
#if BARRIER
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone has read row j before row j+1 overwrites it
#endif
  }
}

__kernel void rows_cooperative(const int M, const int R, const int K, __global const float* A,
                               __global const float* B, __global float* Y,
                               __local float* row) {
  const int i = get_global_id(0);
  const int iloc = get_local_id(0);
  const int nloc = get_local_size(0);
  for (int j = 0; j < R; ++j) {
    // Work-item iloc copies elements iloc, iloc + nloc, ...: neighbours read neighbours.
    for (int k = iloc; k < K; k += nloc) row[k] = B[(size_t)j * K + k];
#if BARRIER
    barrier(CLK_LOCAL_MEM_FENCE);  // the row is whole before anyone reads it
#endif
    if (i < M) Y[(size_t)j * M + i] = row_times_column(K, row, A, M, i);
#if BARRIER
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone has read row j before row j+1 overwrites it
#endif
  }
}
