/* The weight file loader: any file gives weights or an error, never a crash, a huge
 * allocation or a read outside a buffer. Input: the file's bytes. */
#include "fuzz.h"

#include <unistd.h>

#include "../../eval/eval.h"

static char path[64];
static Weights *w;

static void cleanup(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!w) {
        snprintf(path, sizeof path, "/tmp/damas-fuzz-weights-%d.h5", (int)getpid());
        w = malloc(sizeof *w);
        if (!w)
            abort();
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    static const VariantId ids[] = {VARIANT_RUSSIAN, VARIANT_INTERNATIONAL};
    for (int i = 0; i < 2; i++) {
        char err[1024];
        if (weights_load(path, variant_get(ids[i]), w, err, sizeof err) == DAMAS_OK)
            FUZZ_CHECK(w->layout.n > 0 && w->layout.n <= EVAL_MAX_WEIGHTS, "%d weights", w->layout.n);
        else
            FUZZ_CHECK(err[0] != '\0', "an error without a message");
    }
    return 0;
}
