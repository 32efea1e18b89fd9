// The files in which blobtune-server keeps what its limiters' algorithms have learned
// (tuner::AlgorithmState), one per limiter in its data directory, so that a restart, kill -9
// included, begins at the limits it had instead of searching again.
//
//   std::unique_ptr<tuner::LimitAlgorithm> algorithm = ...;
//   std::string said = RestoreLimiterState(dir, "write", *algorithm);  // a line for the log
//   ...
//   Status s = SaveLimiterState(dir, "write", limiter->SaveAlgorithmState());
//
// A file is written whole and renamed into place, then the directory is synced: after a crash
// it holds the last save or the one before, never a part of one. A state saved by another
// version of blobtune or by another algorithm is not used: the limiter starts afresh, and the
// log line says why.
//
// Thread-safety: stateless functions; two saves of one limiter must not run at once.
#ifndef BLOBTUNE_EXAMPLES_SERVER_LIMITER_STATE_FILE_H_
#define BLOBTUNE_EXAMPLES_SERVER_LIMITER_STATE_FILE_H_

#include <string>
#include <string_view>

#include "blobtune/base/status.h"
#include "blobtune/tuner/algorithm_state.h"
#include "blobtune/tuner/limit_algorithm.h"

namespace blobtune::server {

// <dir>/limiter-<name>.state
std::string LimiterStatePath(std::string_view dir, std::string_view limiter_name);

// Starts `algorithm` from the limiter's file if there is one it can use; returns what happened,
// as a line for the log ("" when there is no file).
std::string RestoreLimiterState(std::string_view dir, std::string_view limiter_name,
                                tuner::LimitAlgorithm& algorithm);

// Writes `state` to the limiter's file, replacing the last one. An I/O error says which file.
Status SaveLimiterState(std::string_view dir, std::string_view limiter_name,
                        const tuner::AlgorithmState& state);

}  // namespace blobtune::server

#endif  // BLOBTUNE_EXAMPLES_SERVER_LIMITER_STATE_FILE_H_
