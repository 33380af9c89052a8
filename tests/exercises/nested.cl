// nested.cl: exercise.generator.nested expects the error for line 4.
__kernel void nested(__global float* b) {
  // EXERCISE(outer): store 1
  // EXERCISE(inner): store 2
  b[get_global_id(0)] = 1;
  // END EXERCISE
  // END EXERCISE
}
