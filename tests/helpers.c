#include "helpers.h"

#include "../gen/gen.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

Variant test_variant(const char *name, bool optional)
{
    Variant v;
    char err[256];
    int rc = variant_lookup(name, optional, &v, err, sizeof err);
    cr_assert_eq(rc, DAMAS_OK, "variant %s: %s", name, err);
    return v;
}

Position test_position(const Variant *v, const char *fen)
{
    Position pos;
    char err[256];
    int rc = notation_fen_parse(v, fen, &pos, err, sizeof err);
    cr_assert_eq(rc, DAMAS_OK, "FEN %s (%s): %s", fen, v->name, err);
    return pos;
}

static int compare_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the space-separated words of text in place. */
static void sort_words(char *text, size_t len)
{
    char *copy = strdup(text);
    char *words[MOVELIST_MAX];
    int n = 0;
    for (char *w = strtok(copy, " "); w && n < MOVELIST_MAX; w = strtok(NULL, " "))
        words[n++] = w;
    qsort(words, (size_t)n, sizeof words[0], compare_text);
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, len - used, "%s%s", i ? " " : "", words[i]);
    free(copy);
}

void test_moves_text(const Variant *v, const char *fen, char *out, size_t len)
{
    Position pos = test_position(v, fen);
    MoveList list;
    movegen_moves(&pos, v, &list);
    cr_assert(!list.overflow);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < list.count; i++) {
        char text[NOTATION_MOVE_MAX];
        notation_move_write(v, &pos, &list.moves[i], NOTATION_NATIVE, text);
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? " " : "", text);
    }
    sort_words(out, len);
}

static void check_moves(const char *variant, bool optional, const char *fen, const char *expected)
{
    Variant v = test_variant(variant, optional);
    char got[8192], want[8192];
    test_moves_text(&v, fen, got, sizeof got);
    snprintf(want, sizeof want, "%s", expected);
    sort_words(want, sizeof want);
    cr_assert_str_eq(got, want, "%s%s %s:\n  got  %s\n  want %s", variant, optional ? " (optional capture)" : "",
                     fen, got, want);
}

void assert_moves(const char *variant, const char *fen, const char *expected)
{
    check_moves(variant, false, fen, expected);
}

void assert_moves_optional(const char *variant, const char *fen, const char *expected)
{
    check_moves(variant, true, fen, expected);
}

Move test_move(const Variant *v, const Position *pos, const char *text)
{
    Move m;
    char err[256];
    int rc = notation_move_parse(v, pos, text, &m, err, sizeof err);
    cr_assert_eq(rc, DAMAS_OK, "move %s: %s", text, err);
    return m;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int test_random_positions(const Variant *v, uint64_t seed, int count, int plies, Position *out)
{
    int n = 0;
    for (int g = 0; g < count; g++) {
        Position pos;
        pos_start(&pos, v);
        int length = (int)(next_random(&seed) % (uint64_t)(plies + 1));
        for (int p = 0; p < length; p++) {
            MoveList list;
            if (movegen_moves(&pos, v, &list) == 0)
                break;
            Undo u;
            pos_make(&pos, &list.moves[next_random(&seed) % (uint64_t)list.count], &u);
        }
        out[n++] = pos;
    }
    return n;
}

void test_h5_attr_as_array(const char *path, const char *object, const char *name)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0, "%s opens", path);
    hid_t o = H5Oopen(f, object, H5P_DEFAULT);
    cr_assert_geq(o, 0, "%s has %s", path, object);
    if (H5Aexists(o, name) > 0)
        cr_assert_geq(H5Adelete(o, name), 0);
    uint64_t values[64];
    for (int i = 0; i < 64; i++)
        values[i] = (uint64_t)i;
    hsize_t n = 64;
    hid_t space = H5Screate_simple(1, &n, NULL), a = H5Acreate2(o, name, H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0);
    cr_assert_geq(H5Awrite(a, H5T_NATIVE_UINT64, values), 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Oclose(o);
    cr_assert_geq(H5Fclose(f), 0);
}

void test_exhaustive(void)
{
    if (getenv("DAMAS_TEST_QUICK"))
        cr_skip_test("exhaustive: make test runs it");
}

bool test_db_shared(const Variant *v, int pieces, char *dir, size_t len)
{
    const char *base = getenv("DAMAS_TEST_DB_CACHE");
    if (!base || !*base)
        return false;
    snprintf(dir, len, "%s/%s%s-%d", base, v->name, v->rules.optional_capture ? "-oc" : "", pieces);
    char lock[600], done[600], err[512];
    snprintf(lock, sizeof lock, "%s.lock", dir);
    snprintf(done, sizeof done, "%s.done", dir);
    int fd = open(lock, O_CREAT | O_RDWR, 0644);
    cr_assert_geq(fd, 0, "cannot open %s", lock);
    cr_assert_eq(flock(fd, LOCK_EX), 0);
    if (access(done, F_OK) != 0) {
        cr_assert_eq(gen_run(v, pieces, dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
        FILE *f = fopen(done, "w");
        cr_assert_not_null(f);
        fclose(f);
    }
    flock(fd, LOCK_UN);
    close(fd);
    return true;
}

void fake_world_init(FakeWorld *w, int ranks)
{
    memset(w, 0, sizeof *w);
    w->ranks = ranks;
    pthread_barrier_init(&w->barrier, NULL, (unsigned)ranks);
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->moved, NULL);
}

void fake_world_free(FakeWorld *w)
{
    pthread_barrier_destroy(&w->barrier);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->moved);
}

bool fake_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
    FakeProc *me = ctx;
    FakeWorld *w = me->world;
    w->buf[me->rank] = buf;
    pthread_barrier_wait(&w->barrier);
    if (me->rank != root)
        memcpy(buf, w->buf[root], bytes);
    pthread_barrier_wait(&w->barrier);
    return true;
}

bool fake_send(void *ctx, void *buf, size_t bytes, int from, int to)
{
    FakeProc *me = ctx;
    FakeWorld *w = me->world;
    bool fits = true;
    pthread_mutex_lock(&w->lock);
    if (me->rank == from) {
        w->mail[from][to] = buf;
        w->mail_bytes[from][to] = bytes;
        pthread_cond_broadcast(&w->moved);
        while (w->mail[from][to])   /* until taken */
            pthread_cond_wait(&w->moved, &w->lock);
    } else if (me->rank == to) {
        while (!w->mail[from][to])
            pthread_cond_wait(&w->moved, &w->lock);
        /* (No Criterion assertion here: a thread other than the test's cannot fail it.) */
        fits = w->mail_bytes[from][to] == bytes;
        if (fits)
            memcpy(buf, w->mail[from][to], bytes);
        else
            fprintf(stderr, "fake_send: rank %d sent %zu bytes, rank %d expected %zu\n", from,
                    w->mail_bytes[from][to], to, bytes);
        w->mail[from][to] = NULL;
        pthread_cond_broadcast(&w->moved);
    }
    pthread_mutex_unlock(&w->lock);
    return fits;
}

int fake_max(void *ctx, int value)
{
    FakeProc *me = ctx;
    FakeWorld *w = me->world;
    w->value[me->rank] = value;
    pthread_barrier_wait(&w->barrier);
    int top = w->value[0];
    for (int r = 1; r < w->ranks; r++)
        top = w->value[r] > top ? w->value[r] : top;
    pthread_barrier_wait(&w->barrier);
    return top;
}

uint64_t *fake_exchange(void *ctx, const uint64_t *send, const size_t *count, size_t *received)
{
    FakeProc *me = ctx;
    FakeWorld *w = me->world;
    w->send[me->rank] = send;
    w->count[me->rank] = count;
    pthread_barrier_wait(&w->barrier);
    size_t total = 0, at = 0;
    for (int r = 0; r < w->ranks; r++)
        total += w->count[r][me->rank];
    uint64_t *in = malloc((total ? total : 1) * sizeof *in);
    for (int r = 0; r < w->ranks; r++) {
        size_t from = 0;
        for (int q = 0; q < me->rank; q++)
            from += w->count[r][q];
        memcpy(in + at, w->send[r] + from, w->count[r][me->rank] * sizeof *in);
        at += w->count[r][me->rank];
    }
    pthread_barrier_wait(&w->barrier);
    *received = total;
    return in;
}
