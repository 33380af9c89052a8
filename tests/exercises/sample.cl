// sample.cl: input of the exercise generator's self-test (exercise.generator.sample). Its
// skeleton must be sample_skeleton.cl byte for byte. It covers two blocks at different
// indentations, a placeholder, preprocessor lines and blank lines inside a block, and text CMake
// would misread as lists or variables (semicolons, [brackets], ${NOT_A_VARIABLE}).
#ifndef TS
#define TS 4  // tile side
#endif

__kernel void sample(__global const float* a, __global float* b) {
  const int i = get_global_id(0);
  // EXERCISE(first): copy a[i] to b[i]; see ${NOT_A_VARIABLE}
  b[i] = a[i];
  // END EXERCISE
  float acc = 0;
  for (int k = 0; k < TS; ++k) {
    // EXERCISE(second_one): add a[i + k] to acc
    //| float unused_in_solution = 0;
#pragma unroll

    acc += a[i + k];  // [brackets]; semicolons;
    //|(void)unused_in_solution;
    // END EXERCISE
  }
  b[i] += acc;
}
