// stray_end.cl: exercise.generator.stray_end expects the error for line 6.
__kernel void stray_end(__global float* b) {
  // EXERCISE(fine): store 1
  b[get_global_id(0)] = 1;
  // END EXERCISE
  // END EXERCISE
}
