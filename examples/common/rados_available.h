// Whether the program was built with the RADOS store (blobtune::store_rados): CMake defines
// BLOBTUNE_HAVE_RADOS=1 for the programs it links with it, where the build found librados.
//
//   if (!examples::kRadosAvailable) return Fail("--store rados: this build has no RADOS store");
//
// Thread-safety: a constant.
#ifndef BLOBTUNE_EXAMPLES_COMMON_RADOS_AVAILABLE_H_
#define BLOBTUNE_EXAMPLES_COMMON_RADOS_AVAILABLE_H_

namespace blobtune::examples {

#if BLOBTUNE_HAVE_RADOS
inline constexpr bool kRadosAvailable = true;
#else
inline constexpr bool kRadosAvailable = false;
#endif

}  // namespace blobtune::examples

#endif  // BLOBTUNE_EXAMPLES_COMMON_RADOS_AVAILABLE_H_
