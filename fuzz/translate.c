/*
 * translate.c - libFuzzer target for the translator: the input is a .kern
 * file, put through the passes as src/main.c runs them (translate.c:
 * parse, resolve, type, check, emit of the code and of the launcher
 * header), three times: CUDA C, C for
 * the CPU backend, and C with -g --racecheck.  Any crash, sanitizer report, internal
 * error (die() aborts) or hang is a finding; diagnostics are the expected
 * answer to most inputs and go to /dev/null (KERNC_FUZZ_VERBOSE=1 shows
 * them).
 *
 * Built by ./configure --enable-fuzz (CC=clang); `make fuzz-smoke` runs it
 * for a minute on the seed corpus (fuzz/corpus-translate, generated from
 * examples/ and tests/) with fuzz/kern.dict.
 */
#include "kernc.h"

#include <stdint.h>
#include <stdlib.h>

static FILE *fuzz_null;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *verbose = getenv("KERNC_FUZZ_VERBOSE");
    if (!verbose || !*verbose || *verbose == '0')
        fuzz_null = fopen("/dev/null", "w");
    return 0;
}

static void fuzz_one(const uint8_t *data, size_t size, bool target_c, bool debug)
{
    Options opt = {0};
    opt.input = "fuzz.kern";
    opt.output = target_c ? "fuzz.c" : "fuzz.cu";
    opt.header = "fuzz.kern.h";
    opt.target_c = target_c;
    opt.debug = debug;
    opt.racecheck = debug;   /* issue 13: -g --racecheck's instrumentation too */

    Source src = {0};
    src.path = opt.input;
    src.text = arena_strndup((const char *)data, size);
    src.len = size;
    Program *prog = translate(&src, &opt);
    if (prog) {
        StrBuf code = {0}, header = {0};
        translate_emit(prog, &opt, &code, &header);
        sb_free(&code);
        sb_free(&header);
    }
    arena_free_all();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *saved = stderr;
    if (fuzz_null)
        stderr = fuzz_null;   /* glibc: stderr is a variable */
    fuzz_one(data, size, false, false);
    fuzz_one(data, size, true, false);
    fuzz_one(data, size, true, true);
    stderr = saved;
    return 0;
}
