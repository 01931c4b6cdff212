// SPDX-License-Identifier: BSD-3-Clause
// Must not compile: std::string cannot travel as bytes.
#include <hpcoll/hpcoll.hpp>

#include <string>
#include <vector>

int main() {
  hpcoll::communicator c(MPI_COMM_WORLD);
  std::vector<std::string> buf(4);
  hpcoll::Bcast<hpcoll::schedule::binomial>{}(c, buf, 0);
}
