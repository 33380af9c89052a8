// scan_family.cpp: the scan table.
#include "scan_family.hpp"

#include <algorithm>

namespace scan {
namespace {

// Elements of the padded tile of scan_decoupled.cl (a slot after every max(PER_ITEM, 32)): RUN_PAD.
std::uint64_t padded(std::uint64_t tile, std::uint64_t per_item) {
  return tile + tile / std::max<std::uint64_t>(per_item, 32);
}

Variant row(const std::string& name, const std::string& summary, const std::string& file,
            const std::string& kernel, const std::string& passes) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_file = file;
  v.kernel_name = kernel;
  v.tunables = {"LOCAL"};
  v.extra.passes = passes;
  v.covers = [](const Length& n, const lab::Tuning&) -> std::vector<std::uint64_t> { return {n}; };
  // One work-group walks the array (the tiled rows get a group per tile below).
  v.plan = [](const Length&, const lab::Tuning& t) -> lab::NDRangePlan {
    return {{t.whole("LOCAL")}, {t.whole("LOCAL")}};
  };
  v.extra.chain_step = [](const lab::Tuning&) { return std::uint64_t{0}; };
  return v;
}

// The chain of additions in a work-item's run: log2(VEC) steps within a vector, one per vector for
// the running total of the vectors before it, and one per element of a last vector cut short by n.
std::uint64_t run_chain(const lab::Tuning& t) {
  return lab::log2_ceil(t.whole("VEC")) + t.whole("PER_ITEM") / t.whole("VEC") + t.whole("VEC");
}

// Local memory of the tiled rows' staging: the padded tile and the work-items' totals. A group of
// one work-item reads its run straight from memory and stages nothing.
std::uint64_t staged_bytes(const lab::Tuning& t, std::size_t element) {
  const std::uint64_t group = t.whole("GROUP");
  return group == 1 ? 0
                    : (padded(group * t.whole("PER_ITEM"), t.whole("PER_ITEM")) + group) * element;
}

// VEC is a vector width OpenCL C has (1 for scalars) and divides PER_ITEM.
std::string vec_refusal(const std::string& name, const lab::Tuning& t) {
  const std::uint64_t vec = t.whole("VEC"), per_item = t.whole("PER_ITEM");
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8 && vec != 16) {
    return name + " adds VEC elements as one OpenCL C vector, and --vec " + std::to_string(vec) +
           " is not a vector width: choose 1, 2, 4, 8 or 16";
  }
  if (per_item % vec != 0) {
    return name + " reads each work-item's PER_ITEM elements as vectors of VEC, and --per-item " +
           std::to_string(per_item) + " is not a multiple of --vec " + std::to_string(vec) +
           ": choose a PER_ITEM that VEC divides";
  }
  return "";
}

// The chain of pass 2 (scan_sums.cl): a work-item's run of ceil(tiles / L) sums, then work-item
// 0's walk over the L run totals, then one addition in pass 3.
std::uint64_t sums_chain(Length n, std::uint64_t tile, std::uint64_t local) {
  const std::uint64_t tiles = std::max<std::uint64_t>(1, lab::ceil_div(n, tile));
  return lab::ceil_div(tiles, local) + local + 1;
}

Family make_family() {
  Family f;
  f.name = "scan";
  // Work: n additions; bytes: read every element once and write it once (4-byte elements: the
  // lab scales it for double). A pass more over memory shows as a smaller share of the copy.
  f.work = [](const Length& n) { return lab::Work{double(n), 8.0 * double(n)}; };

  lab::Tunable local;
  local.name = "LOCAL";
  local.option = "--local";
  local.meaning = "Work-group size, a power of two";
  local.max = 65536;
  local.candidates = {1, 16, 64, 128, 256, 512, 1024};
  local.grows = lab::kGrowsGroup | lab::kGrowsLocal;
  local.power_of_two = true;
  // The tiled rows' work-group size: --local sets both, but their defaults differ on a CPU, where
  // a tiled row runs best as one work-item a group and the one-group rows need several.
  lab::Tunable group = local;
  group.name = "GROUP";
  local.meaning =
      "hillis_steele, blelloch, three_pass, decoupled_simple: work-group size, a power of two";
  group.meaning = "registers, decoupled: work-group size, a power of two";
  lab::Tunable per_item;
  per_item.name = "PER_ITEM";
  per_item.option = "--per-item";
  per_item.meaning = "registers, decoupled: elements each work-item scans in registers";
  per_item.max = 65536;
  per_item.candidates = {2, 4, 8, 16, 32, 256, 4096, 16384, 65536};
  per_item.grows = lab::kGrowsLocal | lab::kGrowsPrivate;
  lab::Tunable vec;
  vec.name = "VEC";
  vec.option = "--vec";
  vec.meaning = "registers, decoupled: elements a work-item adds as one vector (1, 2, 4, 8, 16)";
  vec.max = 16;
  vec.candidates = {1, 4, 8, 16};
  f.tunables = {local, group, per_item, vec};

  Variant hillis = row("hillis_steele", "one work-group, Hillis-Steele steps over each tile",
                       "scan_hillis_steele.cl", "scan_hillis_steele", "single");
  hillis.extra.tile = [](const lab::Tuning& t) { return t.whole("LOCAL"); };
  hillis.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return 2 * t.whole("LOCAL") * element;
  };
  // log2(LOCAL) steps in the tile, the carry from every tile before, one addition for it.
  hillis.extra.base = [](Length, const lab::Tuning& t, std::uint64_t) {
    return lab::log2_ceil(t.whole("LOCAL")) + 1;
  };
  hillis.extra.chain_step = [](const lab::Tuning& t) { return t.whole("LOCAL"); };

  Variant blelloch = row("blelloch", "one work-group, Blelloch's up-sweep and down-sweep",
                         "scan_blelloch.cl", "scan_blelloch", "single");
  blelloch.extra.tile = [](const lab::Tuning& t) { return 2 * t.whole("LOCAL"); };
  blelloch.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return 2 * t.whole("LOCAL") * element;
  };
  // Up-sweep and down-sweep levels, the element itself, and the carry.
  blelloch.extra.base = [](Length, const lab::Tuning& t, std::uint64_t) {
    return 2 * lab::log2_ceil(2 * t.whole("LOCAL")) + 2;
  };
  blelloch.extra.chain_step = [](const lab::Tuning& t) { return 2 * t.whole("LOCAL"); };

  Variant three = blelloch;
  three.name = "three_pass";
  three.summary = "every work-group a Blelloch tile; the tiles' sums scanned; added back";
  three.kernel_name = "scan_blocks";
  three.extra.passes = "three_pass";
  three.extra.add_kernel = "scan_add";
  three.extra.base = [](Length n, const lab::Tuning& t, std::uint64_t sums_local) {
    const std::uint64_t tile = 2 * t.whole("LOCAL");
    return 2 * lab::log2_ceil(tile) + 2 + sums_chain(n, tile, sums_local);
  };
  three.extra.chain_step = [](const lab::Tuning&) { return std::uint64_t{0}; };

  // The tiled rows: a GPU's shape in scan_decoupled.cl, a CPU's (GROUP 1) in scan_streaming.cl.
  Variant registers =
      row("registers", "three passes over tiles of GROUP x PER_ITEM, scanned in registers",
          "scan_decoupled.cl", "scan_registers_blocks", "three_pass");
  registers.extra.one_item_file = "scan_streaming.cl";
  registers.tunables = {"GROUP", "PER_ITEM", "VEC"};
  registers.extra.add_kernel = "scan_registers_add";
  registers.extra.tile = [](const lab::Tuning& t) {
    return t.whole("GROUP") * t.whole("PER_ITEM");
  };
  registers.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return staged_bytes(t, element);
  };
  registers.private_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("GROUP") == 1 ? 0 : t.whole("PER_ITEM") * element;
  };
  // A work-item's run, the totals' steps, one addition before it; then pass 2 and pass 3.
  registers.extra.base = [](Length n, const lab::Tuning& t, std::uint64_t sums_local) {
    const std::uint64_t tile = t.whole("GROUP") * t.whole("PER_ITEM");
    return run_chain(t) + lab::log2_ceil(t.whole("GROUP")) + 1 + sums_chain(n, tile, sums_local);
  };

  Variant decoupled = registers;
  decoupled.name = "decoupled";
  decoupled.summary = "one pass: tiles from a ticket, each looking back for its prefix";
  decoupled.kernel_name = "scan_decoupled";
  decoupled.extra.passes = "decoupled";
  decoupled.extra.add_kernel.clear();
  decoupled.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    // The tile, the totals, the prefix found; the ticket, the look-back's window (a tile's state
    // is a 64-bit word for each 4 bytes of the element) and position.
    const std::uint64_t window = std::min<std::uint64_t>(t.whole("GROUP"), 32);
    return staged_bytes(t, element) + element + 4 + 8 * (element / 4) * window + 8;
  };
  // The tile's own chain, then one addition per tile looked back over (at worst every tile
  // before), and the one that adds the prefix.
  decoupled.extra.base = [](Length, const lab::Tuning& t, std::uint64_t) {
    return run_chain(t) + lab::log2_ceil(t.whole("GROUP")) + 3;
  };
  decoupled.extra.chain_step = [](const lab::Tuning& t) {
    return t.whole("GROUP") * t.whole("PER_ITEM");
  };

  // The one pass in its plainest form: a tile of LOCAL elements per group, one per work-item,
  // scanned as hillis_steele does, and a look-back one tile at a time by work-item 0.
  Variant simple = row("decoupled_simple",
                       "one pass: tiles of LOCAL from a ticket, a look-back one tile at a time",
                       "scan_decoupled_simple.cl", "scan_decoupled_simple", "decoupled");
  simple.extra.tile = [](const lab::Tuning& t) { return t.whole("LOCAL"); };
  simple.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("LOCAL") * element + element + 4;  // the tile, the prefix found, the ticket
  };
  // log2(LOCAL) steps in the tile, then one addition per tile looked back over (at worst every
  // tile before), and the one that adds the prefix.
  simple.extra.base = [](Length, const lab::Tuning& t, std::uint64_t) {
    return lab::log2_ceil(t.whole("LOCAL")) + 2;
  };
  simple.extra.chain_step = [](const lab::Tuning& t) { return t.whole("LOCAL"); };

  f.variants = {hillis, blelloch, three, registers, simple, decoupled};
  for (Variant& v : f.variants) {
    const bool vectors =
        v.extra.passes != "single" && v.name != "three_pass" && v.name != "decoupled_simple";
    const std::string size = v.tunables.front();  // LOCAL or GROUP
    v.fits = [name = v.name, size, vectors](const Length&, const lab::Tuning& t) {
      const std::string refusal = lab::power_of_two_refusal(
          name + " scans its work-group as a tree", size, "--local", t.whole(size));
      return refusal.empty() && vectors ? vec_refusal(name, t) : refusal;
    };
    if (v.extra.passes == "single") continue;
    v.plan = [tile = v.extra.tile, size](const Length& n,
                                         const lab::Tuning& t) -> lab::NDRangePlan {
      const std::uint64_t tiles = std::max<std::uint64_t>(1, lab::ceil_div(n, tile(t)));
      return {{tiles * t.whole(size)}, {t.whole(size)}};
    };
  }
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning(const cl::Device& device, std::size_t element) {
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  // A GPU's tile: 8192 floats or 4096 doubles, 32 KiB of local memory either way (a tile of
  // 8192 doubles would not fit the 48 KiB an NVIDIA kernel gets). In double, 128 work-items of 32
  // elements: on an H200 at 2^28, 70.9% of the copy kernel, against 65.5% for 256 of 16 and 56.0%
  // for 128 of 16.
  if (gpu && element == 8) {
    return lab::Tuning().with({{"LOCAL", 64}, {"GROUP", 128}, {"PER_ITEM", 32}, {"VEC", 1}});
  }
  if (gpu) return lab::Tuning().with({{"LOCAL", 64}, {"GROUP", 256}, {"PER_ITEM", 32}, {"VEC", 1}});
  // VEC: a SIMD register's lanes of the element (16 floats or 8 doubles with AVX-512, 8 or 4
  // with AVX2), as reduction's VW.
  const int lanes = lab::cpu_simd_unit(device).float_lanes * 4 / int(element);
  return lab::Tuning().with(
      {{"LOCAL", 8}, {"GROUP", 1}, {"PER_ITEM", 65536}, {"VEC", std::max(1, lanes)}});
}

lab::Tuning vec_dividing(lab::Tuning defaults, const lab::Tuning& chosen) {
  if (chosen.given("VEC")) return defaults;
  std::int64_t vec = defaults["VEC"];
  while (vec > 1 && chosen["PER_ITEM"] % vec != 0) vec /= 2;
  defaults.set("VEC", vec);
  return defaults;
}

Variant for_shape(const Variant& variant, const lab::Tuning& tuning) {
  Variant shaped = variant;
  const bool one_item = std::find(variant.tunables.begin(), variant.tunables.end(), "GROUP") !=
                            variant.tunables.end() &&
                        tuning.whole("GROUP") == 1;
  if (one_item && !variant.extra.one_item_file.empty()) {
    shaped.kernel_file = variant.extra.one_item_file;
  }
  return shaped;
}

std::uint64_t sums_local(const cl::Device& device) {
  std::uint64_t local = 256;
  while (local > 1 && local > device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()) local /= 2;
  return local;
}

std::string cannot_run(const Variant& variant, const cl::Device& device) {
  if (variant.extra.passes != "decoupled") return "";
  if (device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") !=
      std::string::npos) {
    return "";
  }
  return variant.name +
         " publishes each tile's flag and value together in one 64-bit word with atom_xchg, and "
         "this device lacks cl_khr_int64_base_atomics: run --variant registers, the same tiles "
         "in three passes";
}

}  // namespace scan
