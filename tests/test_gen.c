/* The retrograde solver and the verifier. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/memory.h"
#include "../gen/gen.h"
#include "../gen/solve.h"
#include "helpers.h"

/* Solves `units` in order into s, in memory. */
static void solve_units(DbSet *s, const Material *units, int n, int threads)
{
    for (int u = 0; u < n; u++) {
        DbTable *out[2];
        int nout;
        char err[256];
        cr_assert_eq(unit_solve(s, units[u], threads, out, &nout, NULL, err, sizeof err), DAMAS_OK, "%s", err);
        for (int i = 0; i < nout; i++) {
            Material m = out[i]->slice.m;
            s->t[m.um][m.uk][m.tm][m.tk] = out[i];
        }
    }
}

static DbSet *new_set(const char *variant)
{
    Variant v = test_variant(variant, false);
    DbSet *s = malloc(sizeof *s);
    dbset_init(s, &v);
    return s;
}

/* A set holding every unit of `variant` up to `pieces` on 8x8, solved in memory. */
static DbSet *solved_set(const char *variant, int pieces)
{
    DbSet *s = new_set(variant);
    Material units[DB_MAX_MATERIALS];
    int n = material_all(pieces, 8, units);
    for (int i = 0; i < n; i++)
        if (!dbset_get(s, units[i]))
            solve_units(s, &units[i], 1, 2);
    return s;
}

static const Material kings_only[] = {{0, 1, 0, 1}, {0, 2, 0, 1}, {0, 2, 0, 2}, {0, 3, 0, 1}};

/* Whether tables a and b (of one slice) hold the same values and distances, in codes of the
 * same size. */
static bool same_codes(const DbTable *a, const DbTable *b)
{
    uint64_t n = a->slice.size;
    return a->slice.size == b->slice.size && !a->code8 == !b->code8 &&
           (a->code8 ? memcmp(a->code8, b->code8, n) : memcmp(a->code16, b->code16, n * sizeof *a->code16)) == 0;
}

Test(gen, american_king_against_king_matches_published_counts)
{
    DbSet *s = new_set("american");
    solve_units(s, kings_only, 1, 2);
    const DbTable *t = dbset_get(s, (Material){0, 1, 0, 1});
    cr_assert_eq(t->slice.size, 992);
    cr_assert_eq(t->wins, 230);
    cr_assert_eq(t->draws, 654);
    cr_assert_eq(t->losses, 108);
    cr_assert_eq(t->max_dtw, 11);
    dbset_free(s);
    free(s);
}

Test(gen, american_two_kings_against_one_matches_published_counts)
{
    DbSet *s = new_set("american");
    solve_units(s, kings_only, 2, 2);
    const DbTable *t = dbset_get(s, (Material){0, 2, 0, 1});
    cr_assert_eq(t->slice.size, 14880);
    cr_assert_eq(t->wins, 14846);
    cr_assert_eq(t->draws, 34);
    cr_assert_eq(t->losses, 0);
    dbset_free(s);
    free(s);
}

static void assert_same_tables(const char *a, const char *b)
{
    DbSet *x = new_set(a), *y = new_set(b);
    int n = sizeof kings_only / sizeof kings_only[0];
    solve_units(x, kings_only, n, 2);
    solve_units(y, kings_only, n, 2);
    for (int u = 0; u < n; u++)
        for (int side = 0; side < 2; side++) {
            Material m = side ? material_swap(kings_only[u]) : kings_only[u];
            const DbTable *p = dbset_get(x, m), *q = dbset_get(y, m);
            cr_assert_eq(p->checksum, q->checksum, "%s and %s differ on %d%d%d%d", a, b, m.um, m.uk, m.tm, m.tk);
            cr_assert(same_codes(p, q), "%s and %s differ on %d%d%d%d", a, b, m.um, m.uk, m.tm, m.tk);
        }
    dbset_free(x);
    dbset_free(y);
    free(x);
    free(y);
}

Test(gen, kings_only_tables_of_russian_and_czech_are_equal)
{
    assert_same_tables("russian", "czech");
}

Test(gen, kings_only_tables_of_brazilian_and_spanish_are_equal)
{
    assert_same_tables("brazilian", "spanish");
}

Test(gen, kings_only_tables_differ_between_flying_and_short_kings)
{
    DbSet *x = new_set("russian"), *y = new_set("american");
    solve_units(x, kings_only, 2, 2);
    solve_units(y, kings_only, 2, 2);
    cr_assert_neq(dbset_get(x, (Material){0, 2, 0, 1})->checksum, dbset_get(y, (Material){0, 2, 0, 1})->checksum);
    dbset_free(x);
    dbset_free(y);
    free(x);
    free(y);
}

Test(gen, solution_does_not_depend_on_thread_count)
{
    Material units[DB_MAX_MATERIALS];
    int n = material_all(3, 8, units);
    DbSet *a = new_set("russian"), *b = new_set("russian");
    for (int i = 0; i < n; i++) {
        Material m = units[i];
        if (dbset_get(a, m))
            continue;
        solve_units(a, &m, 1, 1);
        solve_units(b, &m, 1, 2);
        cr_assert_eq(dbset_get(a, m)->checksum, dbset_get(b, m)->checksum);
    }
    dbset_free(a);
    dbset_free(b);
    free(a);
    free(b);
}

/* A slice of more than 2^31 positions is queued in several lanes (International m1k2-m1k2 has
 * 2.32 G): with lanes of 2^16 indices, every 4-piece unit larger than that takes the same path
 * and must come out the same. */
Test(gen, slices_queued_in_several_lanes_solve_the_same)
{
    Material units[DB_MAX_MATERIALS];
    int n = material_all(4, 8, units), wide = 0;
    DbSet *a = new_set("brazilian"), *b = new_set("brazilian");
    for (int i = 0; i < n; i++) {
        Material m = units[i];
        if (dbset_get(a, m))
            continue;
        solve_lane_bits = SOLVE_LANE_BITS;
        solve_units(a, &m, 1, 2);
        solve_lane_bits = 16;
        solve_units(b, &m, 1, 2);
        const DbTable *x = dbset_get(a, m), *y = dbset_get(b, m);
        wide += x->slice.size > 1u << 16;
        cr_assert(same_codes(x, y), "unit %d%d%d%d", m.um, m.uk, m.tm, m.tk);
        cr_assert_eq(memcmp(x->dont_care, y->dont_care, x->slice.size), 0);
    }
    cr_assert_gt(wide, 10);
    dbset_free(a);
    dbset_free(b);
    free(a);
    free(b);
}

typedef struct {
    FakeProc proc;   /* first: the collectives' ctx */
    size_t round;    /* SolveSplit.round */
    const DbSet *solved;
    Material m;
    DbTable *out[2];
    int nout, rc;
    char err[256];
} FakeRank;

static void *fake_rank_solve(void *arg)
{
    FakeRank *me = arg;
    SolveSplit split = {.rank = me->proc.rank, .ranks = me->proc.world->ranks, .round = me->round, .ctx = me,
                        .exchange = fake_exchange, .max = fake_max, .broadcast = fake_broadcast, .send = fake_send};
    me->rc = unit_solve_split(me->solved, NULL, me->m, 1, &split, NULL, me->out, &me->nout, NULL, me->err,
                              sizeof me->err);
    return NULL;
}

/* Every unit up to `pieces` solved by `ranks` threads as a split, exchanging updates after
 * every `round` queued positions (0: the default), equals the one-process solution: each
 * rank's values, distances and don't-care flags in its share (shares aligned to `align`
 * positions instead of DB_SHARE_ALIGN, so that small units are shared too), and the
 * statistics and checksum of the whole slice on every rank. */
static void assert_split_equals_one_process(const char *variant, int pieces, int ranks, size_t round, uint64_t align)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, 8, units);
    DbSet *s = new_set(variant);
    FakeWorld w;
    fake_world_init(&w, ranks);
    db_share_align = align;
    int shared = 0;   /* units of which more than one rank held a part */
    for (int u = 0; u < n; u++) {
        FakeRank r[FAKE_RANKS];
        pthread_t th[FAKE_RANKS];
        for (int k = 0; k < ranks; k++) {
            r[k] = (FakeRank){.proc = {&w, k}, .round = round, .solved = s, .m = units[u]};
            cr_assert_eq(pthread_create(&th[k], NULL, fake_rank_solve, &r[k]), 0);
        }
        for (int k = 0; k < ranks; k++)
            pthread_join(th[k], NULL);
        DbTable *one[2];
        int none;
        char err[256];
        cr_assert_eq(unit_solve(s, units[u], 1, one, &none, NULL, err, sizeof err), DAMAS_OK, "%s", err);
        for (int k = 0; k < ranks; k++) {
            cr_assert_eq(r[k].rc, DAMAS_OK, "rank %d: %s", k, r[k].err);
            cr_assert_eq(r[k].nout, none);
            for (int i = 0; i < none; i++) {
                const DbTable *a = one[i], *b = r[k].out[i];
                uint64_t first, end;
                db_share(a->slice.size, k, ranks, &first, &end);
                shared += k == 1 && end > first;
                cr_assert(material_equal(a->slice.m, b->slice.m));
                uint64_t j = first;
                while (j < end && table_code(a, j) == table_code(b, j))
                    j++;
                cr_assert_eq(j, end, "unit %d rank %d: position %llu differs", u, k, (unsigned long long)j);
                cr_assert_eq(memcmp(a->dont_care + first, b->dont_care + first, end - first), 0,
                             "unit %d rank %d: don't-cares", u, k);
                cr_assert(a->wins == b->wins && a->draws == b->draws && a->losses == b->losses &&
                              a->max_dtw == b->max_dtw && a->checksum == b->checksum,
                          "unit %d rank %d: statistics or checksum", u, k);
                table_free(r[k].out[i]);
            }
        }
        for (int i = 0; i < none; i++) {
            Material m = one[i]->slice.m;
            mem_release(one[i]->dont_care);
            one[i]->dont_care = NULL;
            s->t[m.um][m.uk][m.tm][m.tk] = one[i];
        }
    }
    db_share_align = DB_SHARE_ALIGN;
    cr_assert_gt(shared, 0);
    fake_world_free(&w);
    dbset_free(s);
    free(s);
}

Test(gen, unit_split_over_two_ranks_equals_one_process)
{
    assert_split_equals_one_process("russian", 4, 2, 0, 64);
}

Test(gen, unit_split_over_three_ranks_equals_one_process)
{
    assert_split_equals_one_process("american", 4, 3, 0, 64);
    assert_split_equals_one_process("brazilian", 3, 3, 0, 8);
}

/* A level larger than a round goes in several rounds, each followed by an exchange, while the
 * ranks that have run out of positions exchange nothing: here a queue block a round. */
Test(gen, unit_split_exchanging_every_block_equals_one_process)
{
    assert_split_equals_one_process("russian", 4, 3, 1, 64);
}

static void build_and_verify(const char *variant, bool optional, int pieces)
{
    Variant v = test_variant(variant, optional);
    char dir[] = "/tmp/damas-test-XXXXXX", err[512];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(gen_run(&v, pieces, dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    DbSet *s = malloc(sizeof *s);
    dbset_init(s, &v);
    int slices;
    cr_assert_eq(gen_load_all(dir, s, true, &slices, err, sizeof err), DAMAS_OK, "%s", err);
    VerifyReport r;
    verify_set(s, 2, NULL, &r);
    cr_assert(r.ok, "%s: %s", variant, r.failure);
    cr_assert_gt(r.positions, 0);
    dbset_free(s);
    free(s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(gen, every_variant_builds_and_verifies_to_3_pieces)
{
    test_exhaustive();
    const char *names[] = {"brazilian", "russian", "spanish", "czech", "italian", "american", "international"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        build_and_verify(names[i], false, 3);
}

Test(gen, optional_capture_databases_build_and_verify)
{
    test_exhaustive();
    build_and_verify("brazilian", true, 3);
    build_and_verify("american", true, 3);
}

/* A lost position whose longest way out is a promotion waits in the queue at that loss's level
 * while its moves inside are found to lose (its state word keeps only that it has such an
 * exit: gen/solver.h): such positions exist in ≤4 Brazilian, and each one's distance is its
 * longest way out, one ply more than its longest-lasting successor's. */
Test(gen, lost_position_lasts_longest_through_a_promotion)
{
    test_exhaustive();
    DbSet *s = solved_set("brazilian", 4);
    Material units[DB_MAX_MATERIALS];
    int n = material_all(4, 8, units);
    uint64_t through_exit = 0;
    for (int u = 0; u < n; u++) {
        const DbTable *t = dbset_get(s, units[u]);
        for (uint64_t i = 0; t->slice.m.um > 0 && i < t->slice.size; i++) {
            if (table_wdl(t, i) != DB_LOSS || table_dtw(t, i) == 0)
                continue;
            Position pos;
            slice_unrank(&t->slice, i, &pos);
            if (db_dont_care(&s->variant, &pos))
                continue;
            MoveList list;
            movegen_moves(&pos, &s->variant, &list);
            int inside = -1, exit = -1;
            for (int k = 0; k < list.count; k++) {
                Position after;
                pos_after(&pos, &list.moves[k], &after);
                uint16_t d;
                cr_assert_eq(dbset_value(s, &after, &d), DB_WIN);
                bool out = !material_equal(material_of(&after), material_swap(t->slice.m));
                int *longest = out ? &exit : &inside;
                *longest = d > *longest ? d : *longest;
            }
            cr_assert_eq((inside > exit ? inside : exit) + 1, table_dtw(t, i));
            through_exit += inside >= 0 && exit > inside;
        }
    }
    cr_assert_gt(through_exit, 0);
    dbset_free(s);
    free(s);
}

Test(gen, verifier_finds_a_wrong_value)
{
    DbSet *s = solved_set("russian", 3);
    VerifyReport r;
    verify_set(s, 2, NULL, &r);
    cr_assert(r.ok, "%s", r.failure);
    DbTable *t = dbset_get(s, (Material){1, 1, 0, 1});
    uint64_t i = 0;
    while (table_wdl(t, i) != DB_WIN)
        i++;
    int d = table_dtw(t, i);
    table_set(t, i, DB_WIN, d + 2);
    verify_set(s, 2, NULL, &r);
    /* The first failure is the corrupted position or one of its predecessors in the twin. */
    cr_assert(!r.ok);
    cr_assert(strstr(r.failure, "m1k1-m0k1") || strstr(r.failure, "m0k1-m1k1"), "%s", r.failure);
    table_set(t, i, DB_DRAW, 0);
    verify_set(s, 2, NULL, &r);
    cr_assert(!r.ok && strstr(r.failure, "stored"), "%s", r.failure);
    dbset_free(s);
    free(s);
}

/* Each unit solved with only the units gen_unit_needs names (what an MPI rank loads) gives the
 * same tables as with everything solved before it; every needed unit comes earlier. */
static void assert_needs_suffice(const char *variant, bool optional, int pieces)
{
    Variant v = test_variant(variant, optional);
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, v.rules.board_size, units);
    DbSet *all = malloc(sizeof *all), *some = malloc(sizeof *some);
    dbset_init(all, &v);
    solve_units(all, units, n, 2);
    for (int u = 0; u < n; u++) {
        dbset_init(some, &v);
        for (int d = 0; d < n; d++) {
            if (!gen_unit_needs(units[u], units[d]))
                continue;
            cr_assert_lt(d, u, "%s: unit %d needs the later unit %d", variant, u, d);
            Material ms[2] = {units[d], material_swap(units[d])};
            for (int k = 0; k < 2; k++)
                some->t[ms[k].um][ms[k].uk][ms[k].tm][ms[k].tk] = dbset_get(all, ms[k]);
        }
        DbTable *out[2];
        int nout;
        char err[256];
        cr_assert_eq(unit_solve(some, units[u], 1, out, &nout, NULL, err, sizeof err), DAMAS_OK, "%s unit %d: %s",
                     variant, u, err);
        for (int i = 0; i < nout; i++) {
            cr_assert_eq(out[i]->checksum, dbset_get(all, out[i]->slice.m)->checksum, "%s unit %d", variant, u);
            table_free(out[i]);
        }
    }
    free(some);
    dbset_free(all);
    free(all);
}

Test(gen, units_needed_by_a_unit_are_enough_to_solve_it)
{
    test_exhaustive();
    assert_needs_suffice("russian", false, 4);
    assert_needs_suffice("american", false, 4);
    assert_needs_suffice("italian", true, 4);
}

/* Unit u of a plan being replayed: if solved or loaded, it finds the units it needs held, and
 * is then held itself. */
static void replay_reads(const Material *units, int u, const bool *on_disk, const GenPlan *plan, bool *held)
{
    bool reads = !on_disk[u] || plan->load[u];
    if (reads)
        for (int d = 0; d < u; d++)
            if (gen_unit_needs(units[u], units[d]))
                cr_assert(held[d], "unit %d %s without unit %d", u, on_disk[u] ? "loaded" : "solved", d);
    held[u] = reads;
}

/* Replays a plan: every unit solved finds the units it needs held, every unit loaded finds
 * the units its captures lead to held, and nothing is held after the last unit. */
static void assert_plan_holds_what_is_needed(int pieces, const bool *on_disk)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, 8, units);
    GenPlan plan;
    gen_plan(units, n, on_disk, 8, &plan);
    bool held[DB_MAX_MATERIALS] = {false};
    for (int u = 0; u < n; u++) {
        replay_reads(units, u, on_disk, &plan, held);
        for (int d = 0; d <= u; d++)
            if (plan.free_after[d] == u) {
                cr_assert(held[d]);
                held[d] = false;
            }
    }
    for (int u = 0; u < n; u++)
        cr_assert(!held[u], "unit %d is never dropped", u);
}

Test(gen, generator_holds_only_the_units_still_needed)
{
    bool on_disk[DB_MAX_MATERIALS] = {false};
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(6, 8, units);
    assert_plan_holds_what_is_needed(6, on_disk);
    /* Resuming with every unit on disk but one: only that unit's needs (and theirs) are read. */
    for (int u = 0; u < n; u++)
        on_disk[u] = true;
    on_disk[n / 2] = false;
    assert_plan_holds_what_is_needed(6, on_disk);
    GenPlan plan;
    gen_plan(units, n, on_disk, 8, &plan);
    for (int u = n / 2; u < n; u++)
        cr_assert(!plan.load[u], "unit %d after the missing one is read", u);
    int loaded = 0;
    for (int u = 0; u < n / 2; u++)
        loaded += plan.load[u];
    cr_assert(loaded > 0 && loaded < n / 2, "%d of %d earlier units read", loaded, n / 2);
    /* From scratch, less than all tables at once: units are dropped once no later unit needs them. */
    uint64_t all = 0;
    for (int u = 0; u < n; u++)
        all += 2 * gen_unit_size(units[u], 8);
    for (int u = 0; u < n; u++)
        on_disk[u] = false;
    gen_plan(units, n, on_disk, 8, &plan);
    cr_assert_lt(plan.peak_bytes, all);
}

static void keep_note(void *ctx, const char *message)
{
    snprintf(ctx, 400, "%s", message);
}

/* Builds ≤pieces of a variant with the usual plan and with the low-memory one (the top units
 * reading their promotions from disk), then again low-memory after deleting one unit of each
 * of the two largest piece counts (so a dropped unit of N - 1 pieces is loaded again): the
 * files are the same bytes every time. */
static void assert_low_memory_builds_the_same_files(const char *variant, bool optional, int pieces)
{
    Variant v = test_variant(variant, optional);
    char usual[] = "/tmp/damas-test-XXXXXX", lean[] = "/tmp/damas-test-XXXXXX", err[512], cmd[800];
    cr_assert_not_null(mkdtemp(usual));
    cr_assert_not_null(mkdtemp(lean));
    cr_assert_eq(gen_run_split(&v, pieces, usual, 2, NULL, false, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(gen_run_split(&v, pieces, lean, 2, NULL, true, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    snprintf(cmd, sizeof cmd, "diff -r %s %s >/dev/null", usual, lean);
    cr_assert_eq(system(cmd), 0, "%s: the low-memory build differs", variant);
    /* With a memory limit, the top units promoted into are kept in memory for those that
     * promote into them (read in memory, not from disk): the same files. */
    snprintf(cmd, sizeof cmd, "rm -rf %s/*", lean);
    cr_assert_eq(system(cmd), 0);
    gen_set_memory_limit((uint64_t)1 << 30);
    char note[400] = "";
    GenProgress progress = {NULL, note, keep_note, NULL};
    cr_assert_eq(gen_run_split(&v, pieces, lean, 2, NULL, true, &progress, err, sizeof err), DAMAS_OK, "%s", err);
    gen_set_memory_limit(0);
    const char *count = strstr(note, "unless kept (");
    int kept = 0;
    cr_assert(count && sscanf(count, "unless kept (%d kept)", &kept) == 1 && kept > 0, "%s", note);
    snprintf(cmd, sizeof cmd, "diff -r %s %s >/dev/null", usual, lean);
    cr_assert_eq(system(cmd), 0, "%s: the low-memory build keeping top units differs", variant);
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, v.rules.board_size, units), deleted = 0;
    for (int u = n - 1; u >= 0 && deleted < 2; u--)
        if (material_pieces(units[u]) == pieces - deleted && material_pieces(units[u]) > 2 &&
            units[u].um + units[u].tm > 0) {
            char name[DB_NAME_MAX];
            store_unit_name(units[u], name);
            snprintf(cmd, sizeof cmd, "rm %s/%s.h5", lean, name);
            cr_assert_eq(system(cmd), 0);
            deleted++;
        }
    cr_assert_eq(deleted, 2);
    cr_assert_eq(gen_run_split(&v, pieces, lean, 1, NULL, true, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    snprintf(cmd, sizeof cmd, "diff -r %s %s >/dev/null && rm -rf %s %s", usual, lean, usual, lean);
    cr_assert_eq(system(cmd), 0, "%s: the resumed low-memory build differs", variant);
}

typedef struct {
    int unit, phase, ticks, tables, solved;
    uint64_t done, decided;   /* in the unit's phase; in the units solved, when they build tables */
} TickLog;

static void log_tick(void *ctx, const GenTick *t)
{
    TickLog *l = ctx;
    if (t->unit != l->unit) {   /* a new unit: it starts initialising */
        cr_assert_eq(t->phase, SOLVE_INIT);
        cr_assert_gt(t->unit, l->unit);
        *l = (TickLog){t->unit, SOLVE_INIT, l->ticks, l->tables, l->solved + 1, 0, l->decided};
    }
    cr_assert_geq(t->phase, l->phase, "phases go forward");
    if (t->phase == l->phase)
        cr_assert_geq(t->done, l->done, "positions done never go down within a phase");
    cr_assert_leq(t->done, t->positions);
    cr_assert_gt(t->positions, 0);
    if (t->phase == SOLVE_TABLES) {
        l->tables++;
        l->decided += t->done;
    }
    l->phase = t->phase;
    l->done = t->done;
    l->ticks++;
}

/* A build reports each unit it solves as it goes: initialising, level by level, then building
 * the tables once, with every won and lost position decided; in both plans; the units on disk
 * not at all. */
Test(gen, progress_inside_a_unit_goes_forward)
{
    test_exhaustive();
    Variant v = test_variant("russian", false);
    char dir[] = "/tmp/damas-test-XXXXXX", err[512], cmd[600];
    cr_assert_not_null(mkdtemp(dir));
    for (int lean = 0; lean < 2; lean++) {
        TickLog l = {0};
        GenProgress progress = {NULL, &l, NULL, log_tick};
        cr_assert_eq(gen_run_split(&v, lean ? 4 : 3, dir, 2, NULL, lean, &progress, err, sizeof err), DAMAS_OK, "%s",
                     err);
        Material units[DB_MAX_MATERIALS];
        int n3 = gen_units(3, 8, units), n4 = gen_units(4, 8, units);
        cr_assert_eq(l.solved, lean ? n4 - n3 : n3);
        cr_assert_eq(l.tables, l.solved);
        cr_assert_gt(l.ticks, 3 * l.solved);
        DbSet *set = malloc(sizeof *set);
        dbset_init(set, &v);
        int slices;
        cr_assert_eq(gen_load_all(dir, set, false, &slices, err, sizeof err), DAMAS_OK, "%s", err);
        uint64_t decided = 0;
        const DbTable *t;
        for (size_t k = 0; (t = dbset_next(set, &k));)
            if (lean ? material_pieces(t->slice.m) == 4 : true)
                decided += t->wins + t->losses;
        cr_assert_eq(l.decided, decided);
        dbset_free(set);
        free(set);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(gen, low_memory_builds_write_the_same_files)
{
    test_exhaustive();
    assert_low_memory_builds_the_same_files("brazilian", false, 4);
    assert_low_memory_builds_the_same_files("american", false, 4);
    assert_low_memory_builds_the_same_files("russian", true, 4);
}

/* Replays a low-memory plan: the smaller units follow the usual schedule, those of fewer than
 * N - 1 pieces stay to the end, and every top unit solved finds each unit it needs either
 * held (kept, or of N - 1 pieces and loaded for it by gen_lean_holds) or on disk before it. */
static void assert_low_memory_plan_holds_what_is_needed(int pieces, int board, const bool *on_disk)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, board, units);
    GenPlan plan;
    gen_plan_lean(units, n, on_disk, board, 0, &plan);
    cr_assert_lt(plan.lean_from, n);
    cr_assert_eq(material_pieces(units[plan.lean_from]), pieces);
    cr_assert_eq(material_pieces(units[plan.lean_from - 1]), pieces - 1);
    bool held[DB_MAX_MATERIALS] = {false}, solving = false;
    for (int u = plan.lean_from; u < n; u++)
        solving |= !on_disk[u];
    for (int u = 0; u < plan.lean_from; u++) {
        replay_reads(units, u, on_disk, &plan, held);
        if (material_pieces(units[u]) < pieces - 1 && solving)
            cr_assert(held[u] && plan.free_after[u] == n - 1, "unit %d of %d pieces is not kept", u, pieces - 2);
        for (int d = 0; d <= u; d++)
            if (plan.free_after[d] == u)
                held[d] = false;
    }
    for (int u = plan.lean_from; u < n; u++) {
        cr_assert(!plan.load[u], "top unit %d is loaded", u);
        if (on_disk[u])
            continue;
        for (int d = 0; d < u; d++)
            if (gen_unit_needs(units[u], units[d]))
                cr_assert(held[d] || gen_lean_holds(units, &plan, u, d) || d >= plan.lean_from,
                          "top unit %d solved without unit %d", u, d);
    }
}

Test(gen, low_memory_plan_holds_what_each_unit_needs)
{
    bool on_disk[DB_MAX_MATERIALS] = {false};
    assert_low_memory_plan_holds_what_is_needed(5, 8, on_disk);
    assert_low_memory_plan_holds_what_is_needed(7, 8, on_disk);
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(7, 8, units);
    for (int u = 0; u < n; u++)
        on_disk[u] = u % 3 != 0;
    assert_low_memory_plan_holds_what_is_needed(7, 8, on_disk);
    /* ≤7 on 8x8 needs far less than keeping every table (41.1 GiB), and fits in 24 GiB. */
    for (int u = 0; u < n; u++)
        on_disk[u] = false;
    GenPlan usual, lean, after_usual;
    gen_plan(units, n, on_disk, 8, &usual);
    gen_plan_lean(units, n, on_disk, 8, 0, &lean);
    cr_assert_lt(lean.peak_bytes, usual.peak_bytes / 2);
    cr_assert_lt(lean.peak_bytes, (uint64_t)23 << 30);
    /* Its peak counts, for every top unit, the units it holds (planned at 2 bytes a position)
     * beside its working state (a 2-byte word a position, and 4-byte queue entries for three
     * quarters of them) -- also when planned after the usual plan, as gen does. */
    gen_plan(units, n, on_disk, 8, &after_usual);
    gen_plan_lean(units, n, on_disk, 8, 0, &after_usual);
    cr_assert_eq(after_usual.peak_bytes, lean.peak_bytes);
    for (int u = lean.lean_from; u < n; u++) {
        uint64_t held = 0;
        for (int d = 0; d < lean.lean_from; d++)
            if (gen_lean_holds(units, &lean, u, d))
                held += 2 * gen_unit_size(units[d], 8);
        cr_assert_gt(held, 0);
        cr_assert_geq(lean.peak_bytes, held + 5 * gen_unit_size(units[u], 8));
    }
    /* Within a budget, top units are kept for the top units that promote into them, each until
     * the last of those, and the peak stays within the budget; with none, none is kept. */
    cr_assert_eq(lean.lean_kept, 0);
    GenPlan keep;
    uint64_t budget = (uint64_t)22 << 30;
    gen_plan_lean(units, n, on_disk, 8, budget, &keep);
    cr_assert_gt(keep.lean_kept, 0);
    cr_assert_leq(keep.peak_bytes, budget);
    cr_assert_geq(keep.peak_bytes, lean.peak_bytes);
    int kept = 0;
    for (int d = keep.lean_from; d < n; d++) {
        int last = d;
        for (int u = d + 1; u < n; u++)
            if (gen_unit_needs(units[u], units[d]))
                last = u;
        cr_assert(keep.free_after[d] == d || keep.free_after[d] == last, "top unit %d kept to %d, not %d", d,
                  keep.free_after[d], last);
        kept += keep.free_after[d] != d;
    }
    cr_assert_eq(kept, keep.lean_kept);
}

static void count_unit(void *ctx, const GenUnitReport *r)
{
    int *n = ctx;
    cr_assert_eq(r->done, ++*n);
    cr_assert_leq(r->done, r->total);
}

/* The unit-by-unit verifier (holding one unit and what it needs, the rest read through a probe)
 * passes a good ≤4 database, and finds a wrong distance written to a file with a valid checksum
 * in a 4-piece unit whose successors it reads from disk; asked for some units only, it checks
 * those (passing a good one, finding the wrong one) and refuses a unit that is not there. */
Test(gen, unit_by_unit_verifier_passes_good_files_and_finds_a_wrong_one)
{
    test_exhaustive();
    Variant v = test_variant("brazilian", false);
    char dir[] = "/tmp/damas-test-XXXXXX", err[512], cmd[600];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(gen_run(&v, 4, dir, 2, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    VerifyReport r;
    int units = 0;
    GenProgress progress = {count_unit, &units, NULL, NULL};
    cr_assert_eq(verify_dir(&v, dir, NULL, 0, 2, &progress, &r, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert(r.ok, "%s", r.failure);
    cr_assert_eq(r.positions, 6408836);
    cr_assert_eq(units, gen_units(4, 8, (Material[DB_MAX_MATERIALS]){0}));
    DbSet *s = malloc(sizeof *s);
    dbset_init(s, &v);
    int slices;
    cr_assert_eq(gen_load_all(dir, s, true, &slices, err, sizeof err), DAMAS_OK, "%s", err);
    Material m = {1, 1, 1, 1};
    DbTable *t = dbset_get(s, m), *twin = dbset_get(s, material_swap(m));
    uint64_t i = 0;
    Position pos;
    /* A win whose stored value counts (no capture to make). */
    for (;; i++) {
        slice_unrank(&t->slice, i, &pos);
        if (table_wdl(t, i) == DB_WIN && !db_dont_care(&v, &pos))
            break;
    }
    table_set(t, i, DB_WIN, table_dtw(t, i) + 2);
    table_stats(t);
    DbTable *both[2] = {t, twin};
    cr_assert_eq(store_write_unit(dir, &v, both, twin && twin != t ? 2 : 1, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(verify_dir(&v, dir, NULL, 0, 2, NULL, &r, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert(!r.ok);
    cr_assert(strstr(r.failure, "m1k1-m1k1"), "%s", r.failure);
    /* Some units only: named by either slice. */
    Material good[2] = {{1, 1, 2, 0}, {0, 1, 0, 2}}, bad = {1, 1, 1, 1}, absent = {2, 1, 1, 1};
    units = 0;
    cr_assert_eq(verify_dir(&v, dir, good, 2, 2, &progress, &r, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert(r.ok, "%s", r.failure);
    cr_assert_eq(units, 2);
    cr_assert_eq(r.positions, gen_unit_size(good[0], 8) + gen_unit_size(good[1], 8));
    cr_assert_eq(verify_dir(&v, dir, &bad, 1, 2, NULL, &r, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert(!r.ok);
    cr_assert(strstr(r.failure, "m1k1-m1k1"), "%s", r.failure);
    cr_assert_eq(verify_dir(&v, dir, &absent, 1, 2, NULL, &r, err, sizeof err), DAMAS_ERR_RANGE);
    cr_assert(strstr(err, "not in"), "%s", err);
    dbset_free(s);
    free(s);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Holding every table of a database too large for any machine (8-piece 10x10 unit names):
 * refused before any file is read, with the figures. */
Test(gen, loading_what_memory_cannot_hold_is_refused)
{
    Variant v = test_variant("international", false);
    char dir[] = "/tmp/damas-test-XXXXXX", err[512], cmd[600];
    cr_assert_not_null(mkdtemp(dir));
    cr_assert_eq(gen_run(&v, 2, dir, 1, NULL, err, sizeof err), DAMAS_OK, "%s", err);
    snprintf(cmd, sizeof cmd, "cd %s && touch m0k4-m0k4.h5 m1k3-m1k3.h5 m2k2-m2k2.h5 m4k0-m4k0.h5", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_not(gen_load_fits(dir, 10));
    DbSet *s = malloc(sizeof *s);
    dbset_init(s, &v);
    int slices;
    cr_assert_eq(gen_load_all(dir, s, true, &slices, err, sizeof err), DAMAS_ERR_RANGE);
    cr_assert(strstr(err, "GiB of memory; this machine has"), "%s", err);
    dbset_free(s);
    free(s);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
