// work_items_record.cl: every work-item writes down what the work-item functions tell it.
// Indices: g = get_global_id(d) - get_global_offset(d) is the work-item's place in the launched
// grid along dimension d; `item` flattens (g0, g1, g2) with dimension 0 fastest.
// The host passes the size it asked for (`requested`); work-items beyond it exist only because
// the global size was padded up to whole work-groups, and they record in_range = 0.

// Fields of one record, in order. Each per-dimension field holds 3 values (dimensions the
// launch does not have read as 1 for sizes, 0 for ids, as the OpenCL C specification says).
#define FIELD_GLOBAL_ID 0
#define FIELD_LOCAL_ID 1
#define FIELD_GROUP_ID 2
#define FIELD_NUM_GROUPS 3
#define FIELD_LOCAL_SIZE 4
#define FIELD_GLOBAL_SIZE 5
#define FIELD_GLOBAL_OFFSET 6
#define PER_DIM_FIELDS 7
#define RECORD_WORK_DIM (3 * PER_DIM_FIELDS)      // then get_work_dim()
#define RECORD_IN_RANGE (3 * PER_DIM_FIELDS + 1)  // then 1 inside the requested size, else 0
#define RECORD_SIZE (3 * PER_DIM_FIELDS + 2)

__kernel void work_items_record(__global uint* records, const uint requested0,
                                const uint requested1, const uint requested2) {
  const size_t g0 = get_global_id(0) - get_global_offset(0);
  const size_t g1 = get_global_id(1) - get_global_offset(1);
  const size_t g2 = get_global_id(2) - get_global_offset(2);
  const size_t item = g0 + get_global_size(0) * (g1 + get_global_size(1) * g2);
  __global uint* r = records + item * RECORD_SIZE;

  // EXERCISE(record): store each id function's value at r[3 * FIELD_... + d]; get_work_dim()
  for (uint d = 0; d < 3; ++d) {
    r[3 * FIELD_GLOBAL_ID + d] = (uint)get_global_id(d);
    r[3 * FIELD_LOCAL_ID + d] = (uint)get_local_id(d);
    r[3 * FIELD_GROUP_ID + d] = (uint)get_group_id(d);
    r[3 * FIELD_NUM_GROUPS + d] = (uint)get_num_groups(d);
    r[3 * FIELD_LOCAL_SIZE + d] = (uint)get_local_size(d);
    r[3 * FIELD_GLOBAL_SIZE + d] = (uint)get_global_size(d);
    r[3 * FIELD_GLOBAL_OFFSET + d] = (uint)get_global_offset(d);
  }
  r[RECORD_WORK_DIM] = get_work_dim();
  // END EXERCISE
  // The bounds check a padded launch needs: is this work-item inside the requested grid?
  // EXERCISE(in_range): store 1 if (g0, g1, g2) lies inside the requested size, else 0
  r[RECORD_IN_RANGE] = (g0 < requested0 && g1 < requested1 && g2 < requested2) ? 1 : 0;
  // END EXERCISE
}
