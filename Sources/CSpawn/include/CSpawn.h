#ifndef CSPAWN_H
#define CSPAWN_H

#include <sys/types.h>

// Why C: posix_spawn_file_actions_addclosefrom_np, posix_spawn_file_actions_addchdir_np and pipe2
// need _GNU_SOURCE, and waitid's siginfo fields and the W* status macros are macros; Swift's Glibc
// module imports none of them.

/// Creates a pipe whose two ends are close-on-exec, so no child inherits them by accident.
/// Returns 0, or an errno value.
int cspawn_pipe(int fds[2]);

/// Starts `path` with `argv` and `envp` (both NULL-terminated) in a new process group of its own,
/// with an empty signal mask and every signal at its default action, `stdin_fd`, `stdout_fd` and
/// `stderr_fd` as its descriptors 0, 1 and 2, every other descriptor closed, and `cwd` (if not
/// NULL) as its working directory. Returns 0 and sets `*pid`, or an errno value.
int cspawn_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
                 int stdin_fd, int stdout_fd, int stderr_fd, pid_t *pid);

/// Reports whether the child `pid` has terminated, without reaping it (so its pid, and the process
/// group id it names, cannot be reused yet). Returns 1 if it has, 0 if not, -1 on error (errno).
int cspawn_has_exited(pid_t pid);

/// Reaps the terminated child `pid`. Sets `*signaled` to 1 and `*code` to the signal number if a
/// signal ended it, or `*signaled` to 0 and `*code` to its exit status. Returns 0, or -1 (errno).
int cspawn_reap(pid_t pid, int *signaled, int *code);

/// Makes a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE: a crash or a Swift
/// trap) append `signal N` and a newline to the file open at `descriptor` before the process ends
/// as it would have (the previous handler, such as a sanitizer's, runs next). The handler runs on
/// an alternate stack installed for the calling thread, so a stack overflow there is noted too.
/// Returns 0, or -1 (errno).
int cspawn_install_crash_note(int descriptor);

#endif
