#define _GNU_SOURCE
#include "CSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int cspawn_pipe(int fds[2]) {
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : errno;
}

int cspawn_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd,
                 int stdin_fd, int stdout_fd, int stderr_fd, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }

    // dup2 clears close-on-exec on the target, so only these three survive the exec.
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    if (result == 0) result = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Belt and braces: a descriptor some library opened without close-on-exec (Foundation's
    // FileHandle, swift-corelibs-foundation#5409) must not reach a hook either.
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    if (result == 0 && cwd != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, cwd);

    // A process group of its own, so a timeout can signal the hook and everything it started.
    // An empty mask and default actions, so a mask or an ignored SIGPIPE inherited from whatever
    // thread spawns (swift-corelibs-foundation#4772) never reaches the hook.
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    if (result == 0) result = posix_spawnattr_setpgroup(&attributes, 0);
    if (result == 0) result = posix_spawnattr_setsigmask(&attributes, &empty);
    if (result == 0) result = posix_spawnattr_setsigdefault(&attributes, &all);
    if (result == 0) {
        result = posix_spawnattr_setflags(
            &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}

int cspawn_has_exited(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    // WNOWAIT leaves the child a zombie: its pid stays reserved until cspawn_reap.
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}

int cspawn_reap(pid_t pid, int *signaled, int *code) {
    int status = 0;
    pid_t result;
    do {
        result = waitpid(pid, &status, 0);
    } while (result < 0 && errno == EINTR);
    if (result < 0) return -1;
    if (WIFSIGNALED(status)) {
        *signaled = 1;
        *code = WTERMSIG(status);
    } else {
        *signaled = 0;
        *code = WEXITSTATUS(status);
    }
    return 0;
}
