// SPDX-License-Identifier: BSD-3-Clause
#include "octree.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <parallel/algorithm>
#include <stdexcept>

namespace hpcoll_barnes_hut {

namespace {

constexpr int key_bits = 21;  // per dimension: 63-bit keys
constexpr std::uint32_t finest = 1u << key_bits;

/// x's bits spread to every third position.
std::uint64_t spread(std::uint64_t x) {
  x &= 0x1fffff;
  x = (x | x << 32) & 0x1f00000000ffffull;
  x = (x | x << 16) & 0x1f0000ff0000ffull;
  x = (x | x << 8) & 0x100f00f00f00f00full;
  x = (x | x << 4) & 0x10c30c30c30c30c3ull;
  x = (x | x << 2) & 0x1249249249249249ull;
  return x;
}

struct keyed {
  std::uint64_t key;
  std::uint32_t body;
  bool operator<(const keyed& o) const { return key < o.key || (key == o.key && body < o.body); }
};

/// Mass and mass-weighted position sums of a subtree: a parent's are its children's summed in octant
/// order, so every cell's centre of mass is the same however the subtrees were built.
struct moments {
  double m = 0, mx = 0, my = 0, mz = 0;

  moments& operator+=(const moments& o) {
    m += o.m, mx += o.mx, my += o.my, mz += o.mz;
    return *this;
  }
};

/// Appends a subtree built on its own (its `next` counted from 0) to `cells`.
void append(std::vector<cell>& cells, const std::vector<cell>& subtree) {
  const auto offset = static_cast<std::uint32_t>(cells.size());
  for (cell c : subtree) {
    c.next += offset;
    cells.push_back(c);
  }
}

struct builder {
  const std::vector<keyed>& keys;
  const std::vector<point_mass>& sorted;
  double root_size;

  /// Appends the subtree of the bodies [first, last) (one cube at `level`) to `out` in preorder.
  moments build(std::uint32_t first, std::uint32_t last, int level, std::vector<cell>& out) const {
    const auto self = static_cast<std::uint32_t>(out.size());
    out.push_back(cell{0, 0, 0, 0, std::ldexp(root_size, -level), first, last - first, 0, 0});
    moments sum;
    if (last - first <= leaf_capacity || level == key_bits) {
      out[self].leaf = 1;
      for (std::uint32_t k = first; k < last; ++k) {
        const point_mass& p = sorted[k];
        sum.m += p.m, sum.mx += p.m * p.x, sum.my += p.m * p.y, sum.mz += p.m * p.z;
      }
    } else {
      for_each_child(first, last, level, [&](std::uint32_t begin, std::uint32_t end) {
        sum += build(begin, end, level + 1, out);
      });
    }
    finish(out[self], sum, static_cast<std::uint32_t>(out.size()));
    return sum;
  }

  /// Calls f(begin, end) for each non-empty octant of the cube at `level` holding [first, last).
  template <class F>
  void for_each_child(std::uint32_t first, std::uint32_t last, int level, F&& f) const {
    const int shift = 3 * (key_bits - 1 - level);
    std::uint32_t begin = first;
    while (begin < last) {
      const std::uint64_t octant = keys[begin].key >> shift & 7;
      std::uint32_t end = begin + 1;
      while (end < last && (keys[end].key >> shift & 7) == octant) ++end;
      f(begin, end);
      begin = end;
    }
  }

  static void finish(cell& c, const moments& sum, std::uint32_t next) {
    c.m = sum.m;
    c.x = sum.mx / sum.m, c.y = sum.my / sum.m, c.z = sum.mz / sum.m;
    c.next = next;
  }
};

}  // namespace

void octree::index_leaves() {
  leaves.clear();
  for (std::uint32_t c = 0; c < cells.size(); ++c)
    if (cells[c].leaf) leaves.push_back(c);
}

octree build_octree(const std::vector<point_mass>& points, int threads) {
  const std::size_t n = points.size();
  if (n == 0 || n >= std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("the octree holds 1 to 2^32 - 2 bodies");
  // The bounding cube: min and max are exact, whatever order they are taken in.
  double low[3] = {points[0].x, points[0].y, points[0].z}, high[3] = {low[0], low[1], low[2]};
  for (const point_mass& p : points) {
    const double c[3] = {p.x, p.y, p.z};
    for (int d = 0; d < 3; ++d) low[d] = std::min(low[d], c[d]), high[d] = std::max(high[d], c[d]);
  }
  double size = std::max({high[0] - low[0], high[1] - low[1], high[2] - low[2]});
  size = size > 0 ? size * (1 + 1e-12) : 1;  // the largest coordinate inside, not on the edge
  const double scale = finest / size;

  std::vector<keyed> keys(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    const auto cell_of = [&](double v, double lo) {
      return std::min<std::uint64_t>(static_cast<std::uint64_t>((v - lo) * scale), finest - 1);
    };
    keys[i] = {spread(cell_of(points[i].x, low[0])) << 2 | spread(cell_of(points[i].y, low[1])) << 1 |
                   spread(cell_of(points[i].z, low[2])),
               static_cast<std::uint32_t>(i)};
  }
  // Keys with the body as tie-break are unique: every sort gives the same order.
  if (threads > 1)
    __gnu_parallel::sort(keys.begin(), keys.end(), __gnu_parallel::multiway_mergesort_tag(threads));
  else
    std::sort(keys.begin(), keys.end());

  octree t;
  t.sorted.resize(n);
  t.body.resize(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t k = 0; k < n; ++k) {
    t.body[k] = keys[k].body;
    t.sorted[k] = points[keys[k].body];
  }

  const builder b{keys, t.sorted, size};
  const auto all = static_cast<std::uint32_t>(n);
  if (threads <= 1 || all <= leaf_capacity) {
    b.build(0, all, 0, t.cells);
  } else {
    // The root's cell and those of its inner children are made here; every subtree below them (a
    // grandchild's, or a leaf child of the root) is built by one iteration of a parallel loop into
    // its own vector, then appended in octant order: the same preorder as the sequential build.
    struct part {
      std::uint32_t first, last;
      int level;
      std::vector<cell> cells;
      moments sum;
    };
    std::vector<part> parts;
    b.for_each_child(0, all, 0, [&](std::uint32_t begin, std::uint32_t end) {
      if (end - begin <= leaf_capacity) {
        parts.push_back({begin, end, 1, {}, {}});
        return;
      }
      parts.push_back({begin, end, -1, {}, {}});  // level -1: an inner cell at level 1, made below
      b.for_each_child(begin, end, 1, [&](std::uint32_t first, std::uint32_t last) {
        parts.push_back({first, last, 2, {}, {}});
      });
    });
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::size_t p = 0; p < parts.size(); ++p)
      if (parts[p].level > 0) parts[p].sum = b.build(parts[p].first, parts[p].last, parts[p].level, parts[p].cells);

    t.cells.push_back(cell{0, 0, 0, 0, size, 0, all, 0, 0});
    moments root;
    for (std::size_t p = 0; p < parts.size();) {
      if (parts[p].level == 1) {  // a leaf child of the root
        append(t.cells, parts[p].cells);
        root += parts[p].sum;
        ++p;
        continue;
      }
      const auto self = static_cast<std::uint32_t>(t.cells.size());
      t.cells.push_back(cell{0, 0, 0, 0, std::ldexp(size, -1), parts[p].first, parts[p].last - parts[p].first, 0, 0});
      moments child;
      for (++p; p < parts.size() && parts[p].level == 2; ++p) {
        append(t.cells, parts[p].cells);
        child += parts[p].sum;
      }
      builder::finish(t.cells[self], child, static_cast<std::uint32_t>(t.cells.size()));
      root += child;
    }
    builder::finish(t.cells[0], root, static_cast<std::uint32_t>(t.cells.size()));
  }
  t.index_leaves();
  return t;
}

}  // namespace hpcoll_barnes_hut
