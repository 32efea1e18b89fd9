// Clang thread-safety annotations (-Wthread-safety), as in LevelDB and Abseil. They document
// which mutex guards what and let clang check it; with other compilers they expand to nothing.
#ifndef BLOBTUNE_TUNER_THREAD_ANNOTATIONS_H_
#define BLOBTUNE_TUNER_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define BLOBTUNE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define BLOBTUNE_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) BLOBTUNE_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY BLOBTUNE_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) BLOBTUNE_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) BLOBTUNE_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) BLOBTUNE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) BLOBTUNE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) BLOBTUNE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) BLOBTUNE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) BLOBTUNE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS BLOBTUNE_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // BLOBTUNE_TUNER_THREAD_ANNOTATIONS_H_
