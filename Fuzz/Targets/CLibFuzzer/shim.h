// libFuzzer's driver entry point (compiler-rt's FuzzerInterface.h). It is defined by the
// libFuzzer runtime that `-sanitize=fuzzer` links; nothing else is linked from here.
#include <stddef.h>
#include <stdint.h>

typedef int (*LLVMFuzzerUserCallback)(const uint8_t *data, size_t size);

int LLVMFuzzerRunDriver(int *argc, char ***argv, LLVMFuzzerUserCallback callback);
