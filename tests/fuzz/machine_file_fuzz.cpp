// SPDX-License-Identifier: BSD-3-Clause
// The machine file (select/machine_file.hpp): any text gives a profile or an
// hpcoll::error; a profile read is written back unchanged
// (machine_profile_text) and reads back as the same profile.
#include <hpcoll/select/machine_file.hpp>
#include <hpcoll/select/machine_file_save.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpcoll_fuzz;
  hpcoll_fuzz::returns_or_throws<hpcoll::error>([&] {
    const hpcoll::machine_profile p = hpcoll::parse_machine_profile(text_of(data, size), "fuzz.json");
    const std::string saved = hpcoll::machine_profile_text(p);
    hpcoll::machine_profile again;
    try {
      again = hpcoll::parse_machine_profile(saved, "fuzz.json");
    } catch (const hpcoll::error& e) {
      fail("a saved profile does not load", e.what());
    }
    require(hpcoll::machine_profile_text(again) == saved, "save, load, save changes the file");
    require(again.gammas == p.gammas, "the gammas change in a save and load");
    require(again.base.alpha == p.base.alpha && again.base.beta == p.base.beta && again.base.gamma == p.base.gamma &&
                again.base.gap == p.base.gap && again.base.overhead == p.base.overhead &&
                again.base.copy == p.base.copy && again.base.eager_bytes == p.base.eager_bytes &&
                again.base.rendezvous == p.base.rendezvous && again.base.cache_bytes == p.base.cache_bytes &&
                again.base.gamma_cached == p.base.gamma_cached && again.base.copy_cached == p.base.copy_cached &&
                again.base.switch_time == p.base.switch_time && again.base.receiver_copies == p.base.receiver_copies &&
                again.base.source_beta == p.base.source_beta && again.base.eager_copy == p.base.eager_copy &&
                again.base.mailbox_alpha == p.base.mailbox_alpha && again.base.mailbox_beta == p.base.mailbox_beta,
            "the parameters change in a save and load");
  });
  return 0;
}
