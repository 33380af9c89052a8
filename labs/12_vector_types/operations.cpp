// operations.cpp: vector_types' notation demonstrations. Each kernel of vector_types_ops.cl has a
// row here: what it shows and the same computation on the host, component by component. One path
// runs and checks them all; a wrong component is named in terms of the input components, so a
// wrong swizzle reads "holds v.s0 where v.s1 belongs".
#include "vector_types.hpp"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <ostream>
#include <sstream>

namespace vector_types {
namespace {

// One kernel: its name, the notation it checks, floats per work-item in x and in out, and the
// host's result for one work-item: want[k] for each out component, and scale[k], the size of the
// terms behind it (0: the result must be exact; else 8 float roundings of scale are allowed).
struct Operation {
  const char* kernel;
  const char* shows;
  int in;
  int out;
  void (*host)(const float* v, double* want, double* scale);
};

// The host's convert_int_sat for a float: toward zero, clamped to int, NaN to 0.
int saturate(float value) {
  if (std::isnan(value)) return 0;
  if (value >= 2147483648.0f) return INT_MAX;
  if (value < -2147483648.0f) return INT_MIN;
  return static_cast<int>(value);
}

// Components in float, exactly as the device rounds them: each operation below is one IEEE
// operation on both sides.
const Operation kOperations[] = {
    {"literals",
     "(float4)(v.s0, v.s1, 2, -1), (float4)(v.s3), (float8)(v.s23, (float2)(0.5, v.s0), v)", 4, 16,
     [](const float* v, double* want, double*) {
       const float out[16] = {v[0], v[1], 2.0f, -1.0f, v[3], v[3], v[3], v[3],
                              v[2], v[3], 0.5f, v[0],  v[0], v[1], v[2], v[3]};
       std::copy(out, out + 16, want);
     }},
    {"swizzles", "v.wzyx, v.xxyy, f = v with f.z = 1 and f.wx = v.xy, f.wzxy", 4, 16,
     [](const float* v, double* want, double*) {
       const float f[4] = {v[1], v[1], 1.0f, v[0]};
       const float out[16] = {v[3], v[2], v[1], v[0], v[0], v[0], v[1], v[1],
                              f[0], f[1], f[2], f[3], f[3], f[2], f[0], f[1]};
       std::copy(out, out + 16, want);
     }},
    {"numeric_indices", "v.sFEDCBA98, v.s0246, v.s9bdf on a float16", 16, 16,
     [](const float* v, double* want, double*) {
       const int pick[16] = {15, 14, 13, 12, 11, 10, 9, 8, 0, 2, 4, 6, 9, 11, 13, 15};
       for (int k = 0; k < 16; ++k) want[k] = v[pick[k]];
     }},
    {"halves", "v.hi, v.lo, v.even, v.odd on a float8", 8, 16,
     [](const float* v, double* want, double*) {
       const int pick[16] = {4, 5, 6, 7, 0, 1, 2, 3, 0, 2, 4, 6, 1, 3, 5, 7};
       for (int k = 0; k < 16; ++k) want[k] = v[pick[k]];
     }},
    {"arithmetic", "f * g, f -= g, fabs, + 3.0f widened, *= 0.5f, fmax", 8, 16,
     [](const float* v, double* want, double*) {
       for (int k = 0; k < 4; ++k) {
         const float f = v[k], g = v[4 + k];
         const float diff = f - g, magnitude = std::fabs(diff);
         want[k] = (magnitude + 3.0f) * 0.5f;
         want[4 + k] = magnitude;
         want[8 + k] = f * g;
         want[12 + k] = std::fmax(f, g);
       }
     }},
    {"geometry", "cross(a, b).xyz, dot(a, b), length(a), distance(a, b) on float4", 8, 8,
     [](const float* v, double* want, double* scale) {
       const double a[4] = {v[0], v[1], v[2], v[3]}, b[4] = {v[4], v[5], v[6], v[7]};
       // cross: each component a difference of two products (a float4's w is ignored).
       const int p[3] = {1, 2, 0}, q[3] = {2, 0, 1};
       for (int k = 0; k < 3; ++k) {
         want[k] = a[p[k]] * b[q[k]] - a[q[k]] * b[p[k]];
         scale[k] = std::fabs(a[p[k]] * b[q[k]]) + std::fabs(a[q[k]] * b[p[k]]);
       }
       double dot = 0, dot_scale = 0, length2 = 0, distance2 = 0;
       for (int k = 0; k < 4; ++k) {
         dot += a[k] * b[k];
         dot_scale += std::fabs(a[k] * b[k]);
         length2 += a[k] * a[k];
         distance2 += (a[k] - b[k]) * (a[k] - b[k]);
       }
       want[3] = dot;
       scale[3] = dot_scale;
       want[4] = std::sqrt(length2);
       scale[4] = want[4];
       want[5] = std::sqrt(distance2);
       const double length_b = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
       scale[5] = want[5] + want[4] + length_b;  // a - b rounds relative to |a| + |b|
       want[6] = want[7] = 0;
     }},
    {"conversions", "convert_int4 (toward zero), _rte, _rtn, _sat of v * 2.5", 4, 16,
     [](const float* v, double* want, double*) {
       for (int k = 0; k < 4; ++k) {
         const float x = v[k] * 2.5f;
         want[k] = static_cast<float>(static_cast<int>(std::trunc(x)));
         want[4 + k] = static_cast<float>(static_cast<int>(std::nearbyint(x)));  // ties to even
         want[8 + k] = static_cast<float>(static_cast<int>(std::floor(x)));
         want[12 + k] = static_cast<float>(saturate(x * 1e9f));
       }
     }},
    {"comparisons", "a > b as -1/0, select(b, a, a > b), a & mask, any() and all()", 8, 16,
     [](const float* v, double* want, double*) {
       bool any_greater = false, all_greater = true, any_negative = false, all_below = true;
       for (int k = 0; k < 4; ++k) {
         const float a = v[k], b = v[4 + k];
         const bool greater = a > b;
         want[k] = greater ? -1.0 : 0.0;
         want[4 + k] = greater ? a : b;
         want[8 + k] = greater ? a : 0.0;
         any_greater = any_greater || greater;
         all_greater = all_greater && greater;
         any_negative = any_negative || a < 0.0f;
         all_below = all_below && b < 4.0f;
       }
       want[12] = any_greater, want[13] = all_greater, want[14] = any_negative;
       want[15] = all_below;
     }},
    {"int_vectors", "vi0 = (int4)(-7), vi0.lo = vi1.hi, (int8)(vi0, vi1.s01, vi1.odd), +=, abs", 4,
     16,
     [](const float* v, double* want, double*) {
       int vi1[4], vi0[4] = {-7, -7, -7, -7};
       for (int k = 0; k < 4; ++k) vi1[k] = static_cast<int>(v[k] * 8.0f);  // toward zero
       vi0[0] = vi1[2], vi0[1] = vi1[3];
       const int v8[8] = {vi0[0], vi0[1], vi0[2], vi0[3], vi1[0], vi1[1], vi1[1], vi1[3]};
       for (int k = 0; k < 8; ++k) want[k] = v8[k];
       for (int k = 0; k < 4; ++k) {
         want[8 + k] = std::abs(vi0[k] + vi1[k]);
         want[12 + k] = vi1[k];
       }
     }},
};

std::string component(int k) {
  const char* digits = "0123456789ABCDEF";
  return std::string("s") + digits[k];
}

// "v.s2" when `value` is input component 2 of this work-item's v (the first such), else the value.
std::string name_of(double value, const float* v, int width) {
  if (std::isnan(value)) return "NaN (the sentinel: nothing was written there)";
  for (int j = 0; j < width; ++j) {
    if (static_cast<double>(v[j]) == value) return "v." + component(j);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

const Operation* find_operation(const std::string& name) {
  for (const Operation& op : kOperations) {
    if (name == op.kernel) return &op;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> operation_names() {
  std::vector<std::string> names;
  for (const Operation& op : kOperations) names.push_back(op.kernel);
  return names;
}

std::string operation_list(const std::string& separator) {
  std::string list;
  for (const Operation& op : kOperations) list += (list.empty() ? "" : separator) + op.kernel;
  return list;
}

std::vector<std::string> parse_operations(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream items(text);
  for (std::string name; std::getline(items, name, ',');) {
    if (find_operation(name) == nullptr) {
      throw lab::UsageError("--operations: '" + name + "' is not an operation: choose from " +
                            operation_list(", "));
    }
    names.push_back(name);
  }
  return names;
}

std::vector<lab::Result> operations(Context& c) {
  const Settings& s = c.settings;
  const std::uint64_t items = s.items;
  c.out << "\noperations: " << items
        << " vectors of random floats in [-4, 4), each kernel's result checked component by "
           "component against the host\n";
  const lab::Program program = lab::build_program(c.env, c.options, kOpsFile, {}, c.out);
  const std::vector<std::string> names = s.operations.empty() ? operation_names() : s.operations;
  std::vector<lab::Result> rows;
  for (std::size_t index = 0; index < names.size(); ++index) {
    const Operation& op = *find_operation(names[index]);
    c.out << "  " << op.kernel << ": " << op.shows << "\n";
    const std::uint64_t in_floats = items * op.in, out_floats = items * op.out;
    const auto x = lab::random_vector<float>(
        in_floats, lab::derive_seed(c.options.seed, 10 + index), -4.0f, 4.0f);
    std::vector<double> want(out_floats), scale(out_floats, 0.0);
    for (std::uint64_t i = 0; i < items; ++i) {
      op.host(&x[i * op.in], &want[i * op.out], &scale[i * op.out]);
    }

    const std::string in_type = "float" + std::to_string(op.in) + "*";
    const std::string out_type = "float" + std::to_string(op.out) + "*";
    cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer> kernel(lab::make_kernel(
        program,
        {op.kernel,
         {{"", "ulong", "items"}, {"global", in_type, "x", true}, {"global", out_type, "out"}}}));
    const lab::Launch1D launch =
        lab::plan_1d(kernel.getKernel(), c.env.device, items, group_size(c, kernel.getKernel()));
    lab::GuardedBuffer<float> x_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, in_floats, 0,
                                    x.data());
    lab::GuardedBuffer<float> out(c.env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, out_floats,
                                  (launch.global - items) * op.out);
    const lab::Timing timing = lab::time_launches(
        c.options,
        [&] { return kernel(launch.args(c.env.queue), items, x_buf.buffer(), out.buffer()); },
        c.out);

    const std::string what = std::string(op.kernel) + " out";
    lab::CheckResult check;
    {
      const lab::Mapping<float> got = out.fetch(c.env.queue);
      check = lab::compare_each(
          got.data(), want.data(), out_floats,
          [&](std::size_t e) { return 8 * FLT_EPSILON * scale[e]; }, c.err, what, op.out);
      if (!check.passed() && !check.first.empty()) {
        const lab::Mismatch first = check.first.front();
        const std::size_t item = first.index / op.out;
        const int k = static_cast<int>(first.index % op.out);
        const float* v = &x[item * op.in];
        c.err << "vector_types: " << op.kernel << ": " << check.mismatches << " of " << out_floats
              << " components wrong; the first, out[" << item << "]." << component(k) << ", holds "
              << name_of(first.got, v, op.in) << " where " << name_of(first.want, v, op.in)
              << " belongs: check the notation that fills " << component(k) << " of the result ("
              << op.shows << "; .x .y .z .w are .s0 .s1 .s2 .s3)\n";
      }
    }
    const lab::GuardCheck guard = out.check_guards(c.env.queue);
    const std::string outside =
        lab::describe_guard_writes(guard, what, "padding work-items need `if (i >= items) return`");
    if (!outside.empty()) c.err << "vector_types: " << outside << "\n";

    lab::Result row;
    row.variant = op.kernel;
    row.size = lab::Size("items", std::int64_t(items));
    lab::set_timing(row, timing);
    row.out_of_bounds = guard.total();
    lab::set_check(row, check);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace vector_types
