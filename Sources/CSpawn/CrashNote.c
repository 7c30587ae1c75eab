#define _GNU_SOURCE
#include "CSpawn.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Why C: a signal handler may call only async-signal-safe functions, and Swift code can allocate
// or take locks at any point (string interpolation, reference counting of globals).

static volatile int crash_note_descriptor = -1;
static struct sigaction crash_note_previous[NSIG];
static const int crash_note_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};

static void crash_note_handler(int number) {
    int descriptor = crash_note_descriptor;
    if (descriptor >= 0) {
        char text[24] = "signal ";
        size_t length = 7;
        char digits[12];
        int count = 0;
        int value = number;
        do {
            digits[count++] = (char)('0' + value % 10);
            value /= 10;
        } while (value > 0 && count < 11);
        while (count > 0) text[length++] = digits[--count];
        text[length++] = '\n';
        // The note is a small file; append after whatever it says about the lines.
        if (lseek(descriptor, 0, SEEK_END) >= 0) {
            ssize_t ignored = write(descriptor, text, length);
            (void)ignored;
        }
    }
    // Whatever handled the signal before (the default action, or a sanitizer's report) handles it
    // now: re-raised, it is delivered as soon as this handler returns; a faulting instruction that
    // runs again raises it again.
    sigaction(number, &crash_note_previous[number], NULL);
    raise(number);
}

int cspawn_install_crash_note(int descriptor) {
    crash_note_descriptor = descriptor;
    // A stack overflow leaves no stack to run the handler on: it runs on a stack of its own.
    static int alternate_installed = 0;
    if (!alternate_installed) {
        stack_t alternate;
        memset(&alternate, 0, sizeof alternate);
        alternate.ss_size = 1 << 16;
        alternate.ss_sp = malloc(alternate.ss_size);
        if (alternate.ss_sp == NULL) return -1;
        if (sigaltstack(&alternate, NULL) != 0) return -1;
        alternate_installed = 1;
    }
    for (size_t index = 0; index < sizeof crash_note_signals / sizeof crash_note_signals[0]; index++) {
        int number = crash_note_signals[index];
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = crash_note_handler;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_ONSTACK;
        if (sigaction(number, &action, &crash_note_previous[number]) != 0) return -1;
    }
    return 0;
}
