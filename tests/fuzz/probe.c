/* Configure-time probe (tests/fuzz/meson.build): does this clang link a
 * libFuzzer target with AddressSanitizer and UBSan?  Debian ships libFuzzer
 * in libclang-rt-14-dev, which plain `clang` does not pull in. */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return size > 0 && data[0] == 0;
}
