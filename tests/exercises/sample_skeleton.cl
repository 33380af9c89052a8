// Exercise skeleton generated from tests/exercises/sample.cl by
// scripts/exercise_skeleton.cmake: the build rewrites it, so work on a copy. Fill in each
// YOUR CODE line, then grade your copy from the repository root (exit 0 and PASSED: right; exit 1:
// wrong, the mismatch lines or the build log say where):
//   build/bin/sample --kernel-file my_sample.cl
//   build/bin/sample -n 7 --kernel-file my_sample.cl

// sample.cl: input of the exercise generator's self-test (exercise.generator.sample). Its
// skeleton must be sample_skeleton.cl byte for byte. It covers two blocks at different
// indentations, a placeholder, preprocessor lines and blank lines inside a block, and text CMake
// would misread as lists or variables (semicolons, [brackets], ${NOT_A_VARIABLE}).
#ifndef TS
#define TS 4  // tile side
#endif

__kernel void sample(__global const float* a, __global float* b) {
  const int i = get_global_id(0);
  // YOUR CODE (part first): copy a[i] to b[i]; see ${NOT_A_VARIABLE}
  float acc = 0;
  for (int k = 0; k < TS; ++k) {
    // YOUR CODE (part second_one): add a[i + k] to acc
    float unused_in_solution = 0;
    (void)unused_in_solution;
  }
  b[i] += acc;
}
