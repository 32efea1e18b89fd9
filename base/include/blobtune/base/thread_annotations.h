// Clang thread-safety annotations (-Wthread-safety), as in LevelDB and Abseil. They document
// which mutex guards what and let clang check it; with other compilers they expand to nothing.
#ifndef BLOBTUNE_BASE_THREAD_ANNOTATIONS_H_
#define BLOBTUNE_BASE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define BLOBTUNE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define BLOBTUNE_THREAD_ANNOTATION(x)
#endif

#define BLOBTUNE_CAPABILITY(x) BLOBTUNE_THREAD_ANNOTATION(capability(x))
#define BLOBTUNE_SCOPED_CAPABILITY BLOBTUNE_THREAD_ANNOTATION(scoped_lockable)
#define BLOBTUNE_GUARDED_BY(x) BLOBTUNE_THREAD_ANNOTATION(guarded_by(x))
#define BLOBTUNE_PT_GUARDED_BY(x) BLOBTUNE_THREAD_ANNOTATION(pt_guarded_by(x))
#define BLOBTUNE_REQUIRES(...) BLOBTUNE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define BLOBTUNE_EXCLUDES(...) BLOBTUNE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define BLOBTUNE_ACQUIRE(...) BLOBTUNE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define BLOBTUNE_RELEASE(...) BLOBTUNE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define BLOBTUNE_TRY_ACQUIRE(...) BLOBTUNE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define BLOBTUNE_NO_THREAD_SAFETY_ANALYSIS BLOBTUNE_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // BLOBTUNE_BASE_THREAD_ANNOTATIONS_H_
