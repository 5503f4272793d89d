#include "gen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/memory.h"
#include "../core/movegen.h"
#include "../core/position.h"
#include "../core/system.h"
#include "../db/probe.h"
#include "solve.h"

/* Solves unit m from the tables in set, writes it to dir and adds its tables to set; with a
 * split, from the tables on disk (through `disk`), written by all ranks together and not kept. */
static int solve_unit(DbSet *set, DbProbe *disk, Material m, const char *dir, int threads, SolveSplit *split,
                      const SolveWatch *watch, GenUnitTimes *times, char *err, size_t errlen)
{
    DbTable *out[2];
    int nout = 0;
    int rc = unit_solve_split(set, disk, m, threads, split, watch, out, &nout, &times->solve, err, errlen);
    double t0 = system_now();
    DbShares sh = split ? solve_shares(split) : (DbShares){0};
    if (rc == DAMAS_OK)
        rc = split ? store_write_unit_shared(dir, &set->variant, out, nout, &sh, err, errlen)
                   : store_write_unit(dir, &set->variant, out, nout, err, errlen);
    times->write = system_now() - t0;
    for (int i = 0; i < nout; i++) {
        Material t = out[i]->slice.m;
        mem_release(out[i]->dont_care);
        out[i]->dont_care = NULL;
        if (rc == DAMAS_OK && !split)
            set->t[t.um][t.uk][t.tm][t.tk] = out[i];
        else
            table_free(out[i]);
    }
    return rc;
}

int gen_unit(DbSet *set, Material m, const char *dir, int threads, GenUnitTimes *times, char *err, size_t errlen)
{
    *times = (GenUnitTimes){.skipped = store_unit_exists(dir, m)};
    if (times->skipped)
        return store_load_unit(dir, m, true, set, err, errlen);
    return solve_unit(set, NULL, m, dir, threads, NULL, NULL, times, err, errlen);
}

int gen_run(const Variant *v, int pieces, const char *dir, int threads, const GenProgress *progress, char *err,
            size_t errlen)
{
    return gen_run_split(v, pieces, dir, threads, NULL, false, progress, err, errlen);
}

int gen_hold_needed(DbSet *set, const Material *units, int end, const bool *present, int u, int pieces,
                    const char *dir, char *err, size_t errlen)
{
    int rc = DAMAS_OK;
    for (int d = 0; d < end && rc == DAMAS_OK; d++)
        if ((!present || present[d]) && material_pieces(units[d]) == pieces) {
            if (!gen_unit_needs(units[u], units[d]))
                dbset_drop(set, units[d]);
            else if (!dbset_get(set, units[d]))
                rc = store_load_unit(dir, units[d], true, set, err, errlen);
        }
    return rc;
}

/* Unit u solved with the units it promotes into (and with a split, every unit it needs) read
 * from disk through the probe cache. Without a split, a top unit of a low-memory plan: the
 * smaller units it needs loaded (again), the others of its piece count less one dropped
 * (gen_lean_holds). */
static int solve_from_disk(DbSet *set, const Material *units, const GenPlan *plan, int u, const char *dir,
                           int threads, SolveSplit *split, const SolveWatch *watch, GenUnitTimes *times, char *err,
                           size_t errlen)
{
    int rc = split ? DAMAS_OK
                   : gen_hold_needed(set, units, plan->lean_from, NULL, u, material_pieces(units[u]) - 1, dir, err,
                                     errlen);
    if (rc != DAMAS_OK)
        return rc;
    /* (A unit that needs no other, the first of a build, has nothing on disk to read.) */
    bool needs = false;
    for (int d = 0; d < u && !needs; d++)
        needs = gen_unit_needs(units[u], units[d]);
    DbProbe *disk = needs ? probe_open(dir, &set->variant, DISK_CACHE_BYTES, err, errlen) : NULL;
    if (needs && !disk)
        return DAMAS_ERR_RANGE;
    rc = solve_unit(set, disk, units[u], dir, threads, split, watch, times, err, errlen);
    probe_close(disk);
    return rc;
}

int gen_cached(const Variant *v, int pieces, const char *root, int threads, const GenProgress *progress, char *dir,
               size_t dirlen, char *err, size_t errlen)
{
    int n = snprintf(dir, dirlen, "%s/%s%s-%d", root, v->name, v->rules.optional_capture ? "-optional" : "", pieces);
    if (n < 0 || (size_t)n >= dirlen) {
        snprintf(err, errlen, "%s: path too long", root);
        return DAMAS_ERR_RANGE;
    }
    int rc = store_make_dir(dir, err, errlen);
    if (rc != DAMAS_OK)
        return rc;
    /* gen_run's own lock refuses a second writer; this one makes it wait its turn, before
     * gen_run reads or writes the manifest: the writer's lock removes the temporary files it
     * finds, a waiting process's manifest being written among them. */
    char lock[4096];
    snprintf(lock, sizeof lock, "%s/damas-tables.lock", dir);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", lock, strerror(errno));
        if (fd >= 0)
            close(fd);
        return DAMAS_ERR_IO;
    }
    rc = gen_run(v, pieces, dir, threads, progress, err, errlen);
    close(fd);
    return rc;
}

/* Passes a solve's progress on to GenProgress's unit_tick, naming the unit. */
typedef struct {
    const GenProgress *progress;
    GenTick tick;
} TickRelay;

static void relay_tick(void *ctx, int phase, int level, uint64_t done, uint64_t total)
{
    TickRelay *r = ctx;
    r->tick.phase = phase;
    r->tick.level = level;
    r->tick.done = done;
    r->tick.positions = total;
    r->progress->unit_tick(r->progress->ctx, &r->tick);
}

/* Whether the unit file of m in dir reads back: its attributes, the checksums of its values
 * and the checksum over them (not the values themselves). One that does not (a run killed in
 * an older damas, a damaged disk) is built again, with a note saying so. */
static bool unit_intact(const char *dir, Material m, DbSet *scratch, const GenProgress *progress)
{
    char err[512];
    if (store_load_unit(dir, m, false, scratch, err, sizeof err) == DAMAS_OK) {
        dbset_drop(scratch, m);
        return true;
    }
    if (progress && progress->note) {
        char note[700];
        snprintf(note, sizeof note, "%s: built again", err);
        progress->note(progress->ctx, note);
    }
    return false;
}

int gen_run_split(const Variant *v, int pieces, const char *dir, int threads, SolveSplit *split, bool low_memory,
                  const GenProgress *progress, char *err, size_t errlen)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, v->rules.board_size, units);
    GenPlan *plan = malloc(sizeof *plan);
    DbSet *set = malloc(sizeof *set);
    if (!plan || !set) {
        free(plan);
        free(set);
        snprintf(err, errlen, "out of memory");
        return DAMAS_ERR_RANGE;
    }
    /* One writer per directory: one that exists is locked before anything in it is read, a
     * new one as soon as it is made (below). (A split's directory is gen_run_mpi's.) */
    struct stat st;
    int lock = -1;
    if (!split && stat(dir, &st) == 0) {
        int rc = (lock = store_lock(dir, err, errlen)) < 0 ? DAMAS_ERR_IO : store_manifest(dir, v, false, err, errlen);
        if (rc != DAMAS_OK && rc != DAMAS_ERR_UNKNOWN) {   /* (no manifest yet: a new database) */
            store_unlock(lock);
            free(plan);
            free(set);
            return rc;
        }
    }
    bool on_disk[DB_MAX_MATERIALS] = {false};
    uint64_t total = 0, done = 0;
    dbset_init(set, v);
    for (int u = 0; u < n; u++) {
        on_disk[u] = store_unit_exists(dir, units[u]) && unit_intact(dir, units[u], set, progress);
        total += gen_unit_size(units[u], v->rules.board_size);
    }
    dbset_free(set);
    int missing = 0;
    for (int u = 0; u < n; u++)
        missing += !on_disk[u];
    if (!missing && !split && progress && progress->note) {
        char note[STORE_PATH_MAX + 128];
        snprintf(note, sizeof note, "%s already holds every unit up to %d pieces, each checked: nothing to build",
                 dir, pieces);
        progress->note(progress->ctx, note);
    }
    int rc = DAMAS_OK;
    /* The ranks of a split solve the same units: rank 0's view of the directory. */
    if (split && !split->broadcast(split->ctx, on_disk, sizeof on_disk, 0)) {
        snprintf(err, errlen, "the ranks could not agree on the units on disk");
        rc = DAMAS_ERR_RANGE;
    }
    gen_plan(units, n, on_disk, v->rules.board_size, plan);
    /* Without a split, a build that would not fit keeping every table it needs (or any build
     * with low_memory) follows the low-memory plan. (A split keeps no table: every unit reads
     * all it needs from disk.) */
    uint64_t keeping = plan->peak_bytes;
    if (!split && (low_memory || keeping > gen_memory_size())) {
        gen_plan_lean(units, n, on_disk, v->rules.board_size, 0, plan);
        /* (Where it would take more than the usual plan, it is no help: that one is refused.) */
        if (!gen_lean_chosen(low_memory, keeping, plan->peak_bytes, gen_memory_size())) {
            gen_plan(units, n, on_disk, v->rules.board_size, plan);
        } else {
            /* One process keeps what it can of the top units within its memory, unless asked
             * for the low-memory plan with no limit given: then it holds the least it can. */
            uint64_t least = plan->peak_bytes;
            if (!low_memory || gen_memory_limit())
                gen_plan_lean(units, n, on_disk, v->rules.board_size, gen_keep_budget(), plan);
            if (progress && progress->note) {
                char note[320];
                snprintf(note, sizeof note,
                         "low-memory plan: the %d-piece units read the units they promote into from disk unless "
                         "kept (%d kept); about %.1f GiB, at least %.1f (keeping every table: %.1f GiB)",
                         material_pieces(units[n - 1]), plan->lean_kept, (double)plan->peak_bytes / (1 << 30),
                         (double)least / (1 << 30), (double)keeping / (1 << 30));
                progress->note(progress->ctx, note);
            }
        }
    }
    /* A build that cannot fit leaves no directory behind. (With a split, gen_run_mpi has
     * checked the memory and the directory.) */
    if (rc == DAMAS_OK && !split)
        rc = gen_memory_fits(v, pieces, plan->peak_bytes, plan->lean_from < n ? " (low-memory plan)" : "", err, errlen);
    if (rc == DAMAS_OK && !split)
        rc = store_manifest(dir, v, true, err, errlen);
    if (rc == DAMAS_OK && !split && lock < 0 && (lock = store_lock(dir, err, errlen)) < 0)
        rc = DAMAS_ERR_IO;
    dbset_init(set, v);
    /* Half the memory the plan leaves free may keep released arrays for the units after (the
     * rest is left to the page cache and other programs); not with a split, whose ranks may
     * share a machine. */
    uint64_t have = gen_memory_size();
    mem_keep_limit(!split && plan->peak_bytes < have ? (have - plan->peak_bytes) / 2 : 0);
    for (int u = 0; u < n && rc == DAMAS_OK; u++) {
        char name[DB_NAME_MAX];
        store_unit_name(units[u], name);
        double t0 = system_now();
        GenUnitTimes times = {.skipped = on_disk[u]};
        TickRelay relay = {progress, {u + 1, n, name, SOLVE_INIT, 0, 0, 0}};
        SolveWatch watch = {relay_tick, &relay}, *w = progress && progress->unit_tick ? &watch : NULL;
        /* A unit on disk that nothing left to solve needs is not read at all. */
        if (!on_disk[u] && (split || u >= plan->lean_from))
            rc = solve_from_disk(set, units, plan, u, dir, threads, split, w, &times, err, errlen);
        else if (!on_disk[u])
            rc = solve_unit(set, NULL, units[u], dir, threads, split, w, &times, err, errlen);
        else if (plan->load[u] && !split)
            rc = store_load_unit(dir, units[u], true, set, err, errlen);
        /* With a split, rank 0 writes each unit: the others wait for its file (a later unit
         * may read it from disk), and all stop if any failed. */
        if (split && !on_disk[u] && split->max(split->ctx, rc != DAMAS_OK) && rc == DAMAS_OK) {
            snprintf(err, errlen, "unit %s: another rank failed", name);
            rc = DAMAS_ERR_RANGE;
        }
        for (int d = 0; d <= u; d++)
            if (plan->free_after[d] == u)
                dbset_drop(set, units[d]);
        uint64_t positions = gen_unit_size(units[u], v->rules.board_size);
        done += positions;
        if (rc == DAMAS_OK && progress && progress->unit_done) {
            GenUnitReport r = {u + 1, n, name, positions, system_now() - t0, times.skipped, done, total, &times};
            progress->unit_done(progress->ctx, &r);
        }
    }
    dbset_free(set);
    mem_keep_limit(0);
    free(set);
    free(plan);
    store_unlock(lock);
    return rc;
}

int gen_load_all(const char *dir, DbSet *s, bool data, int *slices, char *err, size_t errlen)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(DB_MAX_PIECES, s->variant.rules.board_size, units);
    *slices = 0;
    uint64_t need = gen_load_bytes(dir, s->variant.rules.board_size);
    if (data && need > gen_memory_size()) {
        snprintf(err, errlen, "holding every table of %s needs about %.1f GiB of memory; this machine has %.1f GiB", dir,
                 (double)need / (1 << 30), (double)gen_memory_size() / (1 << 30));
        return DAMAS_ERR_RANGE;
    }
    /* Every unit below the largest piece count present must be there: a hole (a file deleted
     * or lost) would otherwise show only as a confusing error far from its cause. */
    int top = 0, holes = 0;
    Material hole = {0};
    for (int u = 0; u < n; u++)
        if (store_unit_exists(dir, units[u]) && material_pieces(units[u]) > top)
            top = material_pieces(units[u]);
    for (int u = 0; u < n; u++)
        if (material_pieces(units[u]) < top && !store_unit_exists(dir, units[u]) && holes++ == 0)
            hole = units[u];
    if (holes > 0) {
        char name[DB_NAME_MAX];
        material_name(hole, name);
        snprintf(err, errlen, "%s holds %d-piece units but lacks %d unit file%s with fewer pieces, %s.h5 first: "
                 "damas gen --pieces %d into it builds %s again", dir, top, holes, holes == 1 ? "" : "s", name,
                 top, holes == 1 ? "it" : "them");
        return DAMAS_ERR_UNKNOWN;
    }
    for (int u = 0; u < n; u++) {
        if (!store_unit_exists(dir, units[u]))
            continue;
        int rc = store_load_unit(dir, units[u], data, s, err, errlen);
        if (rc != DAMAS_OK)
            return rc;
        *slices += material_equal(units[u], material_swap(units[u])) ? 1 : 2;
    }
    return DAMAS_OK;
}
