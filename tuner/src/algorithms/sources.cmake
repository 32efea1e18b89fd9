# Sources of the limit algorithms and their registry, relative to tuner/.
set(BLOBTUNE_TUNER_ALGORITHM_SOURCES
  src/algorithms/aimd.cc
  src/algorithms/algorithm_internal.cc
  src/algorithms/algorithm_registry.cc
  src/algorithms/fixed.cc
  src/algorithms/gradient.cc
  src/algorithms/gradient2.cc
  src/algorithms/marginal.cc
  src/algorithms/option_table.cc
  src/algorithms/vegas.cc
)
