// unterminated.cl: exercise.generator.unterminated expects the error for line 4.
__kernel void unterminated(__global float* b) {
  const int i = get_global_id(0);
  // EXERCISE(never_closed): store 1
  b[i] = 1;
}
