// missing_hint.cl: exercise.generator.missing_hint expects the error for line 4.
__kernel void missing_hint(__global float* b) {
  const int i = get_global_id(0);
  // EXERCISE(no_hint):
  b[i] = 1;
  // END EXERCISE
}
