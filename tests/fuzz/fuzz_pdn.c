/* The PDN reader: any text gives games or an error, never a crash; games read, written again
 * by match_write_pdn and read back are the same games. Input: a variant byte, then the text. */
#include "fuzz.h"

#include "../../engine/pdn.h"

typedef struct {
    FILE *out;
    const Variant *v;
    int n;
    int moves[64];
} Copy;

static bool write_back(void *ctx, const Game *g)
{
    Copy *c = ctx;
    if (c->n < 64)
        c->moves[c->n] = g->nmoves;
    c->n++;
    match_write_pdn(c->out, c->v, g, "fuzz", "a", "b", c->n);
    return true;
}

static bool check_again(void *ctx, const Game *g)
{
    Copy *c = ctx;
    FUZZ_CHECK(c->n >= 64 || c->moves[c->n] == g->nmoves, "game %d: %d moves written, %d read back", c->n + 1,
               c->n < 64 ? c->moves[c->n] : -1, g->nmoves);
    c->n++;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    Variant v = fuzz_variant(data[0]);
    static char empty[1];   /* fmemopen needs a buffer of at least a byte: an empty text */
    FILE *in = size > 1 ? fmemopen((void *)(data + 1), size - 1, "r") : fmemopen(empty, 1, "r");
    char *text = NULL;
    size_t len = 0;
    Copy c = {open_memstream(&text, &len), &v, 0, {0}};
    char err[1024];
    int n = pdn_read(&v, in, "fuzz.pdn", write_back, &c, err, sizeof err);
    fclose(in);
    fclose(c.out);
    if (n > 0) {
        FILE *again = fmemopen(text, len, "r");
        int games = c.n;
        c.n = 0;
        int m = pdn_read(&v, again, "again.pdn", check_again, &c, err, sizeof err);
        FUZZ_CHECK(m == games, "%d games written, %d read back: %s", games, m, err);
        fclose(again);
    }
    free(text);
    return 0;
}
