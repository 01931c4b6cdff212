// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: the op combines doubles, the buffers hold points.
#include <hpcoll/hpcoll.hpp>

#include <vector>

struct point {
  int x, y;
};

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<point> in(4), out(4);
  hpcoll::Allreduce<hpcoll::schedule::recursive_doubling>{}(c, in, out, [](double a, double b) { return a + b; });
}
