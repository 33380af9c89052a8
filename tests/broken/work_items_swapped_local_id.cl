// work_items_swapped_local_id.cl: a deliberately broken recorder for the test suite.
// get_local_id is recorded with its dimensions swapped (the classic row/column mix-up), which
// a non-square work-group exposes: the lab's check must report it and exit 1.
#define RECORD_SIZE 23

__kernel void work_items_record(__global uint* records, const uint requested0,
                                const uint requested1, const uint requested2) {
  const size_t g0 = get_global_id(0) - get_global_offset(0);
  const size_t g1 = get_global_id(1) - get_global_offset(1);
  const size_t g2 = get_global_id(2) - get_global_offset(2);
  const size_t item = g0 + get_global_size(0) * (g1 + get_global_size(1) * g2);
  __global uint* r = records + item * RECORD_SIZE;
  for (uint d = 0; d < 3; ++d) {
    r[0 + d] = (uint)get_global_id(d);
    r[3 + d] = (uint)get_local_id(d == 0 ? 1 : (d == 1 ? 0 : 2));  // the bug
    r[6 + d] = (uint)get_group_id(d);
    r[9 + d] = (uint)get_num_groups(d);
    r[12 + d] = (uint)get_local_size(d);
    r[15 + d] = (uint)get_global_size(d);
    r[18 + d] = (uint)get_global_offset(d);
  }
  r[21] = get_work_dim();
  r[22] = (g0 < requested0 && g1 < requested1 && g2 < requested2) ? 1 : 0;
}
