/* replay_main.c - runs a fuzz harness on files without libFuzzer: each
 * argument is one input, run once through LLVMFuzzerTestOneInput. Built by
 * the Makefile's fuzz block with the ASan+UBSan objects of build/san (any
 * compiler), for tests/run_fuzz_regressions.extra.sh. Exit status 0 when
 * every input ran (a sanitizer report aborts with its own status). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

/* libFuzzer's mutator, which custom mutators call; never called here. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
    (void)data;
    (void)max_size;
    return size;
}

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 2;
        }
        size_t cap = 4096, len = 0;
        uint8_t *buf = malloc(cap);
        size_t n;
        while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
            len += n;
            if (len == cap) {
                uint8_t *nb = realloc(buf, cap * 2);
                if (!nb) {
                    free(buf);
                    buf = NULL;
                    break;
                }
                buf = nb;
                cap *= 2;
            }
        }
        fclose(f);
        if (!buf) {
            fprintf(stderr, "%s: out of memory\n", argv[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
    }
    return 0;
}
