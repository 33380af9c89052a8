// vector_add_family.cpp: vector_add's table.
#include "vector_add_family.hpp"

namespace vector_add {
namespace {

// Elements per work-item: 1, PER_ITEM for per_item, VW for vector.
std::uint64_t per_work_item(const std::string& variant, const lab::Tuning& t) {
  if (variant == "per_item") return static_cast<std::uint64_t>(t["PER_ITEM"]);
  if (variant == "vector") return static_cast<std::uint64_t>(t["VW"]);
  return 1;
}

Family make_family() {
  Family f;
  f.name = "vector_add";
  f.work = [](const Length& n) { return lab::Work{double(n), 12.0 * double(n)}; };

  lab::Tunable local;
  local.name = "LOCAL";
  local.option = "--local";
  local.meaning = "Work-group size (default: the runtime chooses)";
  local.max = std::int64_t(lab::kMaxSize);
  local.candidates = {0, 64, 128, 256, 512, 1024};
  local.define = false;
  local.grows = lab::kGrowsGroup;
  lab::Tunable per_item = local;
  per_item.name = "PER_ITEM";
  per_item.option = "--per-item";
  per_item.meaning = "Elements each work-item adds (fewer work-items; --variant per_item)";
  per_item.candidates = {2, 4, 8, 16, 32};
  per_item.grows = lab::kGrowsNothing;
  lab::Tunable width = per_item;
  width.name = "VW";
  width.option = "--vector-width";
  width.meaning = "vector: elements per work-item as one vector (2, 4, 8 or 16)";
  width.min = 2;
  width.max = 16;
  width.candidates = {2, 4, 8, 16};
  width.define = true;
  f.tunables = {local, per_item, width};

  Variant element;
  element.name = "element";
  element.summary = "one element per work-item";
  element.kernel_file = "vector_add.cl";
  element.kernel_name = "vector_add";
  element.tunables = {"LOCAL"};
  Variant strided = element;
  strided.name = "per_item";
  strided.summary = "PER_ITEM elements per work-item, a grid stride apart";
  strided.kernel_name = "vector_add_per_item";
  strided.tunables = {"LOCAL", "PER_ITEM"};
  Variant vector = element;
  vector.name = "vector";
  vector.summary = "VW consecutive elements per work-item as one vector load and store";
  vector.kernel_name = "vector_add_vector";
  vector.tunables = {"LOCAL", "VW"};
  f.variants = {element, strided, vector};

  for (auto& v : f.variants) {
    const std::string name = v.name;
    // The global size is padded up to whole work-groups; the kernels bounds-check.
    v.plan = [name](const Length& n, const lab::Tuning& t) -> lab::NDRangePlan {
      const std::uint64_t l = static_cast<std::uint64_t>(t["LOCAL"]);
      const std::uint64_t count = lab::ceil_div(n, per_work_item(name, t));
      if (l == 0) return {{count}, {}};
      return {{lab::round_up(count, l)}, {l}};
    };
    v.covers = [name](const Length& n, const lab::Tuning& t) -> std::vector<std::uint64_t> {
      const std::uint64_t l = static_cast<std::uint64_t>(t["LOCAL"]);
      const std::uint64_t per = per_work_item(name, t);
      const std::uint64_t count = lab::ceil_div(n, per);
      return {(l == 0 ? count : lab::round_up(count, l)) * per};
    };
  }
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning() {
  lab::Tuning t;
  t.set("LOCAL", 0);
  t.set("PER_ITEM", 4);
  t.set("VW", 4);
  return t;
}

lab::KernelSignature signature() {
  return {"",
          {{"", "ulong", "n"},
           {"global", "float*", "a", true},
           {"global", "float*", "b", true},
           {"global", "float*", "c"}}};
}

}  // namespace vector_add
