#include <errno.h>
#include <omp.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/system.h"
#include "../db/store.h"
#include "../gen/gen.h"
#include "cli.h"

static const char gen_help[] =
    "usage: damas gen --variant V [--optional-capture] --pieces N --out DIR [--threads T] [--low-memory]\n"
    "                 [--split] [--max-memory SIZE]\n"
    "       damas gen --variant V --pieces N [--out DIR] --plan [--ranks R] [--max-memory SIZE]\n"
    "\n"
    "Builds the endgame database of every slice with at most N pieces (at least one a side) by\n"
    "retrograde analysis: win/draw/loss and distance to win in plies, one HDF5 file per unit in DIR.\n"
    "Units already complete in DIR are kept; a killed run loses at most the unit in progress.\n"
    "Built with `make MPI=1`, `mpirun -np R damas gen ...` shares the units among R processes.\n"
    "  --threads T   OpenMP threads (default: all cores)\n"
    "  --low-memory  solve the units of N pieces one at a time, reading the units they promote\n"
    "                into from DIR (chosen by itself when keeping every table would not fit in\n"
    "                memory; then, or with --max-memory, the N-piece units promoted into are\n"
    "                kept while they fit): for ≤7 pieces on 8x8 in 24 GiB\n"
    "  --split       (MPI build) the R processes solve each unit together, each holding 1/R of\n"
    "                its positions and no other table (it reads the units it needs from DIR):\n"
    "                for units too big for one node\n"
    "  --max-memory SIZE  plan for at most SIZE of memory (a number of bytes, or with K, M, G\n"
    "                or T; a process of mpirun): the low-memory plan is chosen, or the build\n"
    "                refused with the figures, before anything is built\n"
    "  --plan        print the memory plans (keeping the tables, low-memory, split over R ranks,\n"
    "                default 16) and which one a build would follow, and build nothing\n";

static const char verify_help[] =
    "usage: damas verify [--variant V [--optional-capture]] --db DIR [--threads T] [--low-memory]\n"
    "                    [--unit NAME]... [--pieces N] [--record FILE]\n"
    "\n"
    "Checks every stored position against its successors' stored values, independently of the\n"
    "generator. Exits 1 naming the slice and position of the first inconsistency.\n"
    "  --low-memory  one unit at a time, reading the successors of other units through a cache\n"
    "                (chosen by itself when holding every table would not fit in memory)\n"
    "  --unit NAME   check only this unit (a slice name as damas info prints it, e.g. m1k2-m2k1;\n"
    "                the unit is the slice and its colour-flipped twin), one unit at a time;\n"
    "                repeat for more\n"
    "  --pieces N    check only the units of N pieces (after extending a checked database by\n"
    "                a piece), one unit at a time\n"
    "  --record FILE append each unit found consistent to FILE (its name, file size and time);\n"
    "                a run with the same FILE skips the units recorded whose file has not\n"
    "                changed since, so that a long check resumes where it was stopped\n";

static const char info_help[] =
    "usage: damas info --db DIR [--json]\n"
    "\n"
    "Per slice and in total: positions, wins, draws, losses, longest win, bytes on disk.\n";

typedef struct {
    bool tty;
    double start;
    uint64_t positions;
    uint64_t solved;     /* positions solved (not loaded) */
    double solving;      /* seconds spent solving them */
    const char *what;    /* was done to a unit: "solved", "checked" */
    double ticked;       /* when the last line on a unit in progress was drawn */
} GenLog;

/* On a terminal, at most twice a second: how far the unit being solved has got. */
static void gen_unit_tick(void *ctx, const GenTick *t)
{
    GenLog *log = ctx;
    double now = system_now();
    if (!log->tty || now - log->ticked < 0.5)
        return;
    log->ticked = now;
    double share = t->positions ? 100.0 * (double)t->done / (double)t->positions : 0;
    char how[96];
    if (t->phase == SOLVE_INIT)
        snprintf(how, sizeof how, "initialising: %.0f%%", share);
    else if (t->phase == SOLVE_PROPAGATE)
        snprintf(how, sizeof how, "level %d: %.0f%% of the positions decided", t->level, share);
    else
        snprintf(how, sizeof how, "building the tables");
    fprintf(stderr, "\r[%3d/%3d] %-12s %-60s", t->unit, t->total, t->name, how);
    fflush(stderr);
}

static void gen_unit_done(void *ctx, const GenUnitReport *r)
{
    GenLog *log = ctx;
    log->positions += r->positions;
    if (!r->skipped) {
        log->solved += r->positions;
        log->solving += r->seconds;
    }
    double elapsed = system_now() - log->start;
    /* Time left from the solving rate so far (units grow, so counting units misleads); none
     * before a second of solving, while each small unit's fixed cost would swamp the rate. */
    char left[32] = "?";
    uint64_t rest = r->positions_total - r->positions_done;
    if (rest == 0)
        snprintf(left, sizeof left, "0 s");
    else if (log->solving >= 1.0)
        snprintf(left, sizeof left, "~%.0f s", (double)rest * log->solving / (double)log->solved);
    char how[160] = "on disk";
    const GenUnitTimes *t = r->times;
    if (!r->skipped && t)
        snprintf(how, sizeof how, "%s (init %.1f s, %d levels %.1f s, tables %.1f s, write %.1f s, queue peak %.0f%%)",
                 log->what, t->solve.init, t->solve.levels, t->solve.propagate, t->solve.tables, t->write,
                 100 * t->solve.queue_peak);
    else if (!r->skipped)
        snprintf(how, sizeof how, "%s", log->what);
    fprintf(stderr, "%s[%3d/%3d] %-12s %12llu positions %8.2f s %7.2f M pos/s  elapsed %.0f s, left %s  %-*s%s",
            log->tty ? "\r" : "", r->done, r->total, r->name, (unsigned long long)r->positions, r->seconds,
            r->seconds > 0.001 ? (double)r->positions / r->seconds / 1e6 : 0, elapsed, left, log->tty ? 72 : 0, how,
            log->tty && r->done < r->total ? "  " : "\n");
    fflush(stderr);
}

static void gen_note(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "%s\n", message);
}

static int print_plan(const Variant *v, int pieces, const char *dir, int ranks, bool low_memory)
{
    GenPlanSummary p;
    if (gen_plan_summary(v, pieces, dir, ranks, low_memory, &p) != DAMAS_OK)
        return cli_error(CLI_FAIL, "out of memory");
    const double gib = 1 << 30;
    printf("%s up to %d pieces: %d units (%d on disk), %llu positions, the largest unit %llu\n", v->name, pieces,
           p.units, p.on_disk, (unsigned long long)p.positions, (unsigned long long)p.largest_unit);
    printf("  keeping the tables the units to solve need: %.2f GiB at the peak\n", p.usual_bytes / gib);
    printf("  low-memory plan (the top units read what they promote into from disk): %.2f GiB\n", p.lean_bytes / gib);
    printf("    keeping the top units promoted into while they fit: %.2f GiB, %d of %d kept\n", p.lean_keep_bytes / gib,
           p.lean_kept, p.top_units);
    printf("  every unit split over %d ranks (--split, MPI build): %.2f GiB a rank, %.1f GiB of updates sent between "
           "ranks in all (estimated)\n",
           ranks, p.split_bytes / gib, p.split_traffic / gib);
    printf("  memory: %.2f GiB: a build follows the %s plan, which %s\n", p.memory_bytes / gib,
           p.lean ? "low-memory" : "usual", p.fits ? "fits" : "does not fit (it would refuse to start)");
    return CLI_OK;
}

int cmd_gen(int argc, char **argv)
{
    const char *variant = NULL, *out = NULL, *value;
    bool optional = false, split = false, low_memory = false, plan = false;
    uint64_t pieces = 0, threads = (uint64_t)system_cores(), max_memory = 0, ranks = 16;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(gen_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if ((value = cli_option(argc, argv, &i, "--out"))) {
            out = value;
        } else if ((value = cli_option(argc, argv, &i, "--pieces"))) {
            if (!cli_uint(value, DB_MAX_PIECES, &pieces) || pieces < 2)
                return cli_error(CLI_USAGE, "--pieces must be a number from 2 to %d, not '%s'", DB_MAX_PIECES, value);
        } else if ((value = cli_option(argc, argv, &i, "--threads"))) {
            if (!cli_threads(value, &threads))
                return CLI_USAGE;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            optional = true;
        } else if (!strcmp(argv[i], "--split")) {
            split = true;
        } else if (!strcmp(argv[i], "--low-memory")) {
            low_memory = true;
        } else if (!strcmp(argv[i], "--plan")) {
            plan = true;
        } else if ((value = cli_option(argc, argv, &i, "--ranks"))) {
            if (!cli_uint(value, 1 << 20, &ranks) || ranks < 1)
                return cli_error(CLI_USAGE, "--ranks must be a positive number, not '%s'", value);
        } else if ((value = cli_option(argc, argv, &i, "--max-memory"))) {
            if (!cli_size(value, &max_memory) || max_memory < (1u << 20))
                return cli_error(CLI_USAGE, "--max-memory must be a size of at least 1M (like 12G or 512M), not '%s'",
                                 value);
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas gen --help)", argv[i]);
        }
    }
    Variant v;
    if (!cli_variant(variant, optional, &v))
        return CLI_USAGE;
    if (!pieces)
        return cli_error(CLI_USAGE, "--pieces is required (see damas gen --help)");
    gen_set_memory_limit(max_memory);
    if (plan)
        return print_plan(&v, (int)pieces, out, (int)ranks, low_memory);
    if (!out)
        return cli_error(CLI_USAGE, "--out DIR is required (see damas gen --help)");
    /* Every parallel part (packing, compressing, checking the tables too) uses T threads. */
    omp_set_num_threads((int)threads);
    GenLog log = {isatty(2), system_now(), 0, 0, 0, "solved", 0};
    GenProgress progress = {gen_unit_done, &log, gen_note, gen_unit_tick};
    char err[1024];
#ifdef DAMAS_MPI
    int rank = 0;
    if (gen_run_mpi(&v, (int)pieces, out, (int)threads, split, low_memory, &progress, &rank, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    if (rank != 0)
        return CLI_OK;
#else
    if (split)
        return cli_error(CLI_USAGE, "--split needs the MPI build (make MPI=1, then mpirun -np R damas gen ...)");
    if (gen_run_split(&v, (int)pieces, out, (int)threads, NULL, low_memory, &progress, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
#endif
    double secs = system_now() - log.start;
    fprintf(stderr, "done: %s, up to %llu pieces, %llu positions in %.1f s (%.2f M positions/s), peak memory %.0f MiB, in %s\n",
            v.name, (unsigned long long)pieces, (unsigned long long)log.positions, secs,
            secs > 0 ? (double)log.positions / secs / 1e6 : 0, system_peak_mib(), out);
    return CLI_OK;
}

/* Opens dir's database (the values too if `data`) into a new set *out; if the user named a
 * variant, it must be the database's. Prints the error and returns the exit code on failure. */
static int open_db(const char *command, const char *dir, const char *variant, bool optional, bool data,
                   DbSet **out)
{
    char err[1024];
    Variant recorded, wanted;
    if (!dir)
        return cli_error(CLI_USAGE, "--db DIR is required (see damas %s --help)", command);
    if (store_manifest_variant(dir, &recorded, err, sizeof err) != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    if (variant) {
        if (!cli_variant(variant, optional, &wanted))
            return CLI_USAGE;
        if (store_manifest(dir, &wanted, false, err, sizeof err) != DAMAS_OK)
            return cli_error(CLI_FAIL, "%s", err);
    }
    DbSet *set = malloc(sizeof *set);
    if (!set)
        return cli_error(CLI_FAIL, "out of memory");
    dbset_init(set, &recorded);
    int slices;
    if (gen_load_all(dir, set, data, &slices, err, sizeof err) != DAMAS_OK) {
        dbset_free(set);
        free(set);
        return cli_error(CLI_FAIL, "%s", err);
    }
    *out = set;
    return CLI_OK;
}

/* `verify --record FILE`: one line a unit found consistent, "NAME SIZE SECONDS NANOSECONDS" (its
 * file's size and modification time then). */
typedef struct {
    GenLog *log;
    const char *dir;
    FILE *out;
    int failed;                      /* errno of a failed write, 0 if none */
} VerifyRecord;

/* The stamp of unit m's file in dir: false if it cannot be read. */
static bool unit_stamp(const char *dir, Material m, struct stat *st)
{
    char path[STORE_PATH_MAX];
    store_unit_path(dir, m, path);
    return stat(path, st) == 0;
}

static void verify_recorded(void *ctx, const GenUnitReport *r)
{
    VerifyRecord *rec = ctx;
    gen_unit_done(rec->log, r);
    Material m;
    struct stat st;
    if (!material_parse(r->name, &m) || !unit_stamp(rec->dir, m, &st))
        return;
    if (fprintf(rec->out, "%s %lld %lld %ld\n", r->name, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                st.st_mtim.tv_nsec) < 0 || fflush(rec->out) != 0)
        rec->failed = rec->failed ? rec->failed : errno ? errno : EIO;
}

/* Whether unit m of dir is in the record `text` with its file unchanged. */
static bool unit_recorded(const char *text, const char *dir, Material m)
{
    struct stat st;
    if (!text || !unit_stamp(dir, m, &st))
        return false;
    char name[DB_NAME_MAX], twin[DB_NAME_MAX], line[160];
    material_name(m, name);
    material_name(material_swap(m), twin);
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        char got[DB_NAME_MAX + 1];
        long long size, sec;
        long nsec;
        if (sscanf(line, "%32s %lld %lld %ld", got, &size, &sec, &nsec) == 4 &&
            (!strcmp(got, name) || !strcmp(got, twin)) && size == (long long)st.st_size &&
            sec == (long long)st.st_mtim.tv_sec && nsec == st.st_mtim.tv_nsec)
            return true;
        p += len + (p[len] == '\n');
    }
    return false;
}

int cmd_verify(int argc, char **argv)
{
    const char *variant = NULL, *dir = NULL, *record = NULL, *value;
    bool optional = false, low_memory = false;
    uint64_t threads = (uint64_t)system_cores();
    Material only[DB_MAX_MATERIALS];
    int nonly = 0;
    uint64_t pieces = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(verify_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--variant"))) {
            variant = value;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            dir = value;
        } else if ((value = cli_option(argc, argv, &i, "--threads"))) {
            if (!cli_threads(value, &threads))
                return CLI_USAGE;
        } else if (!strcmp(argv[i], "--optional-capture")) {
            optional = true;
        } else if (!strcmp(argv[i], "--low-memory")) {
            low_memory = true;
        } else if ((value = cli_option(argc, argv, &i, "--pieces"))) {
            if (!cli_uint(value, DB_MAX_PIECES, &pieces) || pieces < 2)
                return cli_error(CLI_USAGE, "--pieces must be a number from 2 to %d, not '%s'", DB_MAX_PIECES, value);
        } else if ((value = cli_option(argc, argv, &i, "--record"))) {
            record = value;
        } else if ((value = cli_option(argc, argv, &i, "--unit"))) {
            if (nonly == DB_MAX_MATERIALS)
                return cli_error(CLI_USAGE, "too many --unit options");
            if (!material_parse(value, &only[nonly++]))
                return cli_error(CLI_USAGE, "--unit: '%s' is not a slice name like m1k2-m2k1", value);
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas verify --help)", argv[i]);
        }
    }
    /* Loading (restoring the don't-cares) uses T threads too. */
    omp_set_num_threads((int)threads);
    /* The statistics first: they check the directory, the variant and every file's header. */
    DbSet *set;
    int rc = open_db("verify", dir, variant, optional, false, &set);
    if (rc != CLI_OK)
        return rc;
    if (pieces) {
        /* --pieces N: the units of N pieces in dir, beside any named. */
        Material all[DB_MAX_MATERIALS];
        int n = gen_units(DB_MAX_PIECES, set->variant.rules.board_size, all), found = 0;
        for (int u = 0; u < n; u++)
            if (material_pieces(all[u]) == (int)pieces && nonly < DB_MAX_MATERIALS &&
                store_unit_exists(dir, all[u])) {
                only[nonly++] = all[u];
                found++;
            }
        if (!found) {
            dbset_free(set);
            free(set);
            return cli_error(CLI_FAIL, "%s holds no unit of %llu pieces", dir, (unsigned long long)pieces);
        }
    }
    /* --record FILE: the units asked for (all if none), less those recorded unchanged. */
    VerifyRecord rec = {NULL, dir, NULL, 0};
    int skipped = 0;
    if (record) {
        char *text = NULL;
        FILE *in = fopen(record, "r");
        if (in) {
            size_t cap = 0;
            ssize_t got = getdelim(&text, &cap, '\0', in);
            fclose(in);
            if (got < 0) {
                free(text);
                text = NULL;
            }
        }
        Material all[DB_MAX_MATERIALS], pending[DB_MAX_MATERIALS];
        int n = gen_units(DB_MAX_PIECES, set->variant.rules.board_size, all), npending = 0;
        for (int u = 0; u < n; u++) {
            if (!gen_unit_selected(all[u], only, nonly) || !store_unit_exists(dir, all[u]))
                continue;
            if (unit_recorded(text, dir, all[u]))
                skipped++;
            else
                pending[npending++] = all[u];
        }
        free(text);
        if (!(rec.out = fopen(record, "a"))) {
            dbset_free(set);
            free(set);
            return cli_error(CLI_FAIL, "cannot write %s: %s", record, strerror(errno));
        }
        if (npending == 0) {
            fclose(rec.out);
            dbset_free(set);
            free(set);
            printf("ok: every unit asked for is recorded consistent in %s (%d units)\n", record, skipped);
            return CLI_OK;
        }
        if (skipped)
            fprintf(stderr, "%d units recorded consistent in %s: skipped\n", skipped, record);
        memcpy(only, pending, (size_t)npending * sizeof *pending);
        nonly = npending;
    }
    low_memory |= nonly > 0 || !gen_load_fits(dir, set->variant.rules.board_size);
    double t0 = system_now();
    VerifyReport r;
    char err[1024];
    GenLog log = {isatty(2), t0, 0, 0, 0, "checked", 0};
    rec.log = &log;
    GenProgress progress = {record ? verify_recorded : gen_unit_done, record ? (void *)&rec : &log, NULL, NULL};
    if (low_memory) {
        if (!nonly)
            fprintf(stderr, "verifying one unit at a time (low memory)\n");
        rc = verify_dir(&set->variant, dir, only, nonly, (int)threads, &progress, &r, err, sizeof err);
    } else {
        dbset_free(set);
        free(set);
        if ((rc = open_db("verify", dir, variant, optional, true, &set)) != CLI_OK)
            return rc;
        verify_set(set, (int)threads, log.tty ? &progress : NULL, &r);   /* a line a slice on a terminal */
    }
    dbset_free(set);
    free(set);
    if (rec.out && fclose(rec.out) != 0 && !rec.failed)
        rec.failed = errno ? errno : EIO;
    if (rec.failed && rc == DAMAS_OK)
        return cli_error(CLI_FAIL, "cannot write %s: %s", record, strerror(rec.failed));
    if (rc != DAMAS_OK)
        return cli_error(CLI_FAIL, "%s", err);
    if (!r.ok)
        return cli_error(CLI_FAIL, "verify failed in %s: %s", dir, r.failure);
    printf("ok: %d slices, %llu positions consistent (%.1f s)\n", r.slices, (unsigned long long)r.positions,
           system_now() - t0);
    return CLI_OK;
}

int cmd_info(int argc, char **argv)
{
    const char *dir = NULL, *value;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(info_help, stdout);
            return CLI_OK;
        } else if ((value = cli_option(argc, argv, &i, "--db"))) {
            dir = value;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else {
            return cli_error(CLI_USAGE, "unexpected argument '%s' (see damas info --help)", argv[i]);
        }
    }
    DbSet *set;
    int rc = open_db("info", dir, NULL, false, false, &set);
    if (rc != CLI_OK)
        return rc;
    DbTable total = {0};
    int pieces = 0;
    if (json)
        printf("{\"variant\":\"%s\",\"optional_capture\":%s,\"slices\":[", set->variant.name,
               set->variant.rules.optional_capture ? "true" : "false");
    else
        printf("%-12s %14s %14s %14s %14s %7s %12s\n", "slice", "positions", "wins", "draws", "losses", "max_dtw",
               "bytes");
    int printed = 0;
    const DbTable *t;
    for (size_t k = 0; (t = dbset_next(set, &k));) {
        char name[DB_NAME_MAX];
        material_name(t->slice.m, name);
        if (material_pieces(t->slice.m) > pieces)
            pieces = material_pieces(t->slice.m);
        total.slice.size += t->slice.size;
        total.wins += t->wins;
        total.draws += t->draws;
        total.losses += t->losses;
        total.bytes += t->bytes;
        if (t->max_dtw > total.max_dtw)
            total.max_dtw = t->max_dtw;
        if (json)
            printf("%s{\"name\":\"%s\",\"us_men\":%d,\"us_kings\":%d,\"them_men\":%d,\"them_kings\":%d,"
                   "\"positions\":%llu,\"wins\":%llu,\"draws\":%llu,\"losses\":%llu,\"max_dtw\":%d,\"bytes\":%llu}",
                   printed ? "," : "", name, t->slice.m.um, t->slice.m.uk, t->slice.m.tm, t->slice.m.tk,
                   (unsigned long long)t->slice.size, (unsigned long long)t->wins, (unsigned long long)t->draws,
                   (unsigned long long)t->losses, t->max_dtw, (unsigned long long)t->bytes);
        else
            printf("%-12s %14llu %14llu %14llu %14llu %7d %12llu\n", name, (unsigned long long)t->slice.size,
                   (unsigned long long)t->wins, (unsigned long long)t->draws, (unsigned long long)t->losses,
                   t->max_dtw, (unsigned long long)t->bytes);
        printed++;
    }
    if (json)
        printf("],\"pieces\":%d,\"positions\":%llu,\"wins\":%llu,\"draws\":%llu,\"losses\":%llu,\"max_dtw\":%d,"
               "\"bytes\":%llu}\n",
               pieces, (unsigned long long)total.slice.size, (unsigned long long)total.wins,
               (unsigned long long)total.draws, (unsigned long long)total.losses, total.max_dtw,
               (unsigned long long)total.bytes);
    else
        printf("%-12s %14llu %14llu %14llu %14llu %7d %12llu\n%s, %d slices, up to %d pieces\n", "total",
               (unsigned long long)total.slice.size, (unsigned long long)total.wins, (unsigned long long)total.draws,
               (unsigned long long)total.losses, total.max_dtw, (unsigned long long)total.bytes, set->variant.name,
               printed, pieces);
    dbset_free(set);
    free(set);
    return CLI_OK;
}
