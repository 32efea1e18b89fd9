# Sources of the limit algorithms and their registry, relative to tuner/.
set(BLOBTUNE_TUNER_ALGORITHM_SOURCES
)
