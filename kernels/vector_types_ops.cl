// vector_types_ops.cl: the Clemson GPGPU lecture's vector notation, one small kernel per idea. Each
// work-item reads one vector x of random floats, builds a result with the notation the kernel is
// about, and writes it as one vector; the host computes the same result component by component and
// compares every component. Results are packed into float8 or float16 so the host can read them
// alike. Indices: i is the work-item and the vector it owns; items is the number of vectors;
// padding work-items (i >= items) do nothing. Components: .x .y .z .w are .s0 .s1 .s2 .s3; past 9
// the numeric indices are hex digits, .sA to .sF (either case).

// Vector literals: a cast-like type name, then one value per component, a single value for all of
// them, or smaller vectors whose components add up to the width.
__kernel void literals(const ulong items, __global const float4* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float4 v = x[i];
  const float4 each = (float4)(v.s0, v.s1, 2.0f, -1.0f);         // one value per component
  const float4 broadcast = (float4)(v.s3);                        // one value for all four
  const float8 pieces = (float8)(v.s23, (float2)(0.5f, v.s0), v);  // 2 + 2 + 4 components
  out[i] = (float16)(each, broadcast, pieces);
}

// Swizzles: letters (or s-digits) pick components in any order, repeated if you like, and on the
// left of an assignment write only the components they name.
__kernel void swizzles(const ulong items, __global const float4* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float4 v = x[i];
  float4 f = v;
  f.z = 1.0f;    // one component: f = (v.x, v.y, 1, v.w)
  f.wx = v.xy;   // f.w = v.x, f.x = v.y: f = (v.y, v.y, 1, v.x)
  out[i] = (float16)(v.wzyx, v.xxyy, f, f.wzxy);
}

// Numeric indices: .s followed by up to 16 hex digits, which float8 and float16 need past .s3.
__kernel void numeric_indices(const ulong items, __global const float16* x,
                              __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float16 v = x[i];
  out[i] = (float16)(v.sFEDCBA98, v.s0246, v.s9bdf);
}

// Halves: .lo and .hi are the lower and upper half, .even and .odd the even and odd components.
__kernel void halves(const ulong items, __global const float8* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float8 v = x[i];
  out[i] = (float16)(v.hi, v.lo, v.even, v.odd);
}

// Arithmetic: operators and built-ins work component by component, and a scalar operand is
// widened to a vector of that value.
__kernel void arithmetic(const ulong items, __global const float8* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  float4 f = x[i].lo;
  float4 g = x[i].hi;
  const float4 h = f * g;  // four products at once
  f -= g;
  g = fabs(f);
  f = g + 3.0f;  // 3.0f becomes (float4)(3.0f)
  f *= 0.5f;
  out[i] = (float16)(f, g, h, fmax(x[i].lo, x[i].hi));
}

// Geometric built-ins treat a float4 as one vector: dot, length, distance and cross.
__kernel void geometry(const ulong items, __global const float8* x, __global float8* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float4 a = x[i].lo;
  const float4 b = x[i].hi;
  out[i] = (float8)(cross(a, b).xyz, dot(a, b), length(a), distance(a, b), 0.0f, 0.0f);
}

// Conversions: convert_<type> with a rounding mode (_rte nearest even, _rtz toward zero, the
// default for float to int, _rtn down, _rtp up) and _sat to clamp what does not fit.
__kernel void conversions(const ulong items, __global const float4* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float4 v = x[i] * 2.5f;
  const int4 toward_zero = convert_int4(v);
  const int4 nearest = convert_int4_rte(v);
  const int4 down = convert_int4_rtn(v);
  const int4 clamped = convert_int4_sat(v * 1e9f);  // beyond 2^31: INT_MAX or INT_MIN
  out[i] = (float16)(convert_float4(toward_zero), convert_float4(nearest), convert_float4(down),
                     convert_float4(clamped));
}

// Comparisons: a vector comparison gives an int vector with -1 (every bit set) where it holds and
// 0 where it does not, ready for select() and bit masks; any() and all() reduce it.
__kernel void comparisons(const ulong items, __global const float8* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const float4 a = x[i].lo;
  const float4 b = x[i].hi;
  const int4 greater = a > b;
  const float4 larger = select(b, a, greater);            // a where a > b, else b
  const float4 masked = as_float4(as_int4(a) & greater);  // a where a > b, else +0.0f
  out[i] = (float16)(convert_float4(greater), larger, masked,
                     (float4)(any(greater), all(greater), any(a < 0.0f), all(b < 4.0f)));
}

// The Clemson GPGPU lecture's combined example with ints, its (0, 1, 2, 3) replaced by the input:
// literals, halves, a literal of mixed pieces, arithmetic, and abs(), which returns unsigned:
// vectors never convert implicitly, so the result is converted back by hand.
__kernel void int_vectors(const ulong items, __global const float4* x, __global float16* out) {
  const size_t i = get_global_id(0);
  if (i >= items) return;
  const int4 vi1 = convert_int4(x[i] * 8.0f);
  int4 vi0 = (int4)(-7);
  vi0.lo = vi1.hi;
  const int8 v8 = (int8)(vi0, vi1.s01, vi1.odd);
  vi0 += vi1;
  vi0 = convert_int4(abs(vi0));
  out[i] = (float16)(convert_float8(v8), convert_float4(vi0), convert_float4(vi1));
}
