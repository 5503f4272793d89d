/* gen_run across MPI ranks (built with `make MPI=1` only).
 *
 * Rank 0 runs a scheduler thread beside its own worker: every worker (rank 0's main thread
 * included) asks the scheduler for a unit, reporting the one it finished; the scheduler hands
 * out units in dependency order once every unit they need is on disk, or tells the worker to
 * stop when none is left. A worker loads the units it needs from the shared directory, keeps
 * them while a unit not yet on disk needs them, solves its unit with OpenMP threads and writes
 * it atomically. Each unit is handed to
 * exactly one worker, so no file is written twice; units complete on disk are never handed
 * out, so a relaunch finishes only the missing ones.
 *
 * Waits poll with short sleeps instead of blocking in MPI, which would spin a core that the
 * solver's threads need. A failing worker prints its error and aborts the job (MPI_Abort);
 * a killed rank makes mpirun end the job.
 *
 * With --split, the ranks instead solve every unit together, in order, each owning a share of
 * its positions (unit_solve_split, docs/DISTRIBUTED.md): the updates that cross shares go
 * out in rounds of a level with MPI_Alltoallv; each rank packs and encodes its share of the
 * finished tables and sends the encoded chunks to rank 0, which writes the file; every unit
 * a rank needs is read from the shared directory through the probe cache. */
#include <mpi.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/system.h"
#include "gen.h"

enum { TAG_REPORT = 1, TAG_WORK = 2, TAG_SHARE = 3, STOP = -1 };

typedef struct {
    int unit;            /* finished, or -1 on the first request */
    GenUnitTimes times;  /* skipped: it was on disk when the worker reached it */
    double seconds;      /* loading what it needs, solving and writing */
} Report;

typedef struct {
    int units;
    uint64_t positions;
    double seconds;
} RankLoad;

typedef struct {
    const Variant *v;
    const char *dir;
    const GenProgress *progress;
    Material units[DB_MAX_MATERIALS];
    int n, ranks;
    int done;                       /* units */
    uint64_t positions_done, total;
    RankLoad *load;                 /* per rank */
} Schedule;

static void report_done(Schedule *s, int unit, const GenUnitTimes *times, double seconds)
{
    uint64_t positions = gen_unit_size(s->units[unit], s->v->rules.board_size);
    s->positions_done += positions;
    s->done++;
    char name[DB_NAME_MAX];
    store_unit_name(s->units[unit], name);
    GenUnitReport r = {s->done, s->n, name, positions, seconds, times->skipped, s->positions_done, s->total, times};
    if (s->progress && s->progress->unit_done)
        s->progress->unit_done(s->progress->ctx, &r);
}

static void pause_briefly(void)
{
    struct timespec ts = {0, 200 * 1000};
    nanosleep(&ts, NULL);
}

/* MPI_Wait without spinning a core. */
static void wait_quietly(MPI_Request *req, MPI_Status *st)
{
    int done = 0;
    for (MPI_Test(req, &done, st); !done; MPI_Test(req, &done, st))
        pause_briefly();
}

/* The first pending unit whose needs are all done, or -1. */
static int next_ready(const Schedule *s, const char *state)
{
    for (int u = 0; u < s->n; u++) {
        if (state[u] != 'p')
            continue;
        bool ready = true;
        for (int d = 0; d < u && ready; d++)
            ready = state[d] == 'd' || !gen_unit_needs(s->units[u], s->units[d]);
        if (ready)
            return u;
    }
    return -1;
}

static void *schedule(void *arg)
{
    Schedule *s = arg;
    char state[DB_MAX_MATERIALS];   /* 'p'ending, 'r'unning, 'd'one */
    int *idle = malloc((size_t)s->ranks * sizeof *idle), nidle = 0, stopped = 0;   /* each rank at most once */
    s->load = calloc((size_t)s->ranks, sizeof *s->load);
    if (!idle || !s->load) {
        fprintf(stderr, "error: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int u = 0; u < s->n; u++) {
        s->total += gen_unit_size(s->units[u], s->v->rules.board_size);
        state[u] = 'p';
    }
    /* Units complete on disk are reported first and never handed out. */
    for (int u = 0; u < s->n; u++) {
        if (store_unit_exists(s->dir, s->units[u])) {
            state[u] = 'd';
            report_done(s, u, &(GenUnitTimes){.skipped = true}, 0);
        }
    }
    while (stopped < s->ranks) {
        Report rep;
        MPI_Status st;
        MPI_Request req;
        MPI_Irecv(&rep, sizeof rep, MPI_BYTE, MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &req);
        wait_quietly(&req, &st);
        if (rep.unit >= 0) {
            state[rep.unit] = 'd';
            report_done(s, rep.unit, &rep.times, rep.seconds);
            RankLoad *l = &s->load[st.MPI_SOURCE];
            l->units++;
            l->positions += gen_unit_size(s->units[rep.unit], s->v->rules.board_size);
            l->seconds += rep.seconds;
        }
        idle[nidle++] = st.MPI_SOURCE;
        /* Hand out what is ready; stop the idle workers once nothing is pending. */
        bool pending = false;
        for (int u = 0; u < s->n && !pending; u++)
            pending = state[u] == 'p';
        int keep = 0;
        for (int i = 0; i < nidle; i++) {
            int work = pending ? next_ready(s, state) : STOP;
            if (pending && work < 0) {
                idle[keep++] = idle[i];
                continue;
            }
            if (work >= 0)
                state[work] = 'r';
            else
                stopped++;
            MPI_Send(&work, 1, MPI_INT, idle[i], TAG_WORK, MPI_COMM_WORLD);
        }
        nidle = keep;
    }
    free(idle);
    for (int r = 0; r < s->ranks; r++)
        fprintf(stderr, "rank %d: %d units, %llu positions, %.1f s working\n", r, s->load[r].units,
                (unsigned long long)s->load[r].positions, s->load[r].seconds);
    free(s->load);
    return NULL;
}

/* need[d] for every unit d that solving `unit` reads: the units it needs and theirs in turn
 * (loading a unit restores its don't-care values from the units its captures lead to). */
static void needs_of(const Material *units, int unit, bool *need)
{
    for (int d = 0; d <= unit; d++)
        need[d] = d == unit;
    for (int x = unit; x >= 0; x--)
        for (int d = 0; need[x] && d < x; d++)
            need[d] |= gen_unit_needs(units[x], units[d]);
}

/* Asks for units until told to stop. On failure returns the error (the caller aborts). */
static int work(const Variant *v, const char *dir, int threads, int pieces, char *err, size_t errlen)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, v->rules.board_size, units);
    bool loaded[DB_MAX_MATERIALS] = {false};
    DbSet *set = malloc(sizeof *set);
    if (!set) {
        snprintf(err, errlen, "out of memory");
        return DAMAS_ERR_RANGE;
    }
    dbset_init(set, v);
    Report rep = {.unit = -1};
    int rc = DAMAS_OK;
    for (;;) {
        int unit;
        MPI_Request req;
        MPI_Send(&rep, sizeof rep, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD);
        MPI_Irecv(&unit, 1, MPI_INT, 0, TAG_WORK, MPI_COMM_WORLD, &req);
        wait_quietly(&req, MPI_STATUS_IGNORE);
        if (unit == STOP)
            break;
        double t0 = system_now();
        bool need[DB_MAX_MATERIALS];
        needs_of(units, unit, need);
        for (int d = 0; d < unit && rc == DAMAS_OK; d++) {
            if (need[d] && !loaded[d]) {
                rc = store_load_unit(dir, units[d], true, set, err, errlen);
                loaded[d] = true;
            }
        }
        GenUnitTimes times = {0};
        if (rc == DAMAS_OK)
            rc = gen_unit(set, units[unit], dir, threads, &times, err, errlen);
        if (rc != DAMAS_OK)
            break;
        loaded[unit] = true;
        rep = (Report){unit, times, system_now() - t0};
        /* Drop what no unit left to solve reads, directly or to load what it needs: a unit
         * given out later reloads what it reads, and reloading (restoring don't-care values)
         * costs about half as much as solving. */
        bool read[DB_MAX_MATERIALS] = {false};
        for (int u = 0; u < n; u++) {
            if (store_unit_exists(dir, units[u]))
                continue;
            needs_of(units, u, need);
            for (int d = 0; d < u; d++)
                read[d] |= need[d];
        }
        for (int d = 0; d < n; d++) {
            if (loaded[d] && !read[d]) {
                dbset_drop(set, units[d]);
                loaded[d] = false;
            }
        }
    }
    dbset_free(set);
    free(set);
    return rc;
}

/* The collectives of a split (SolveSplit). MPI counts are ints: larger transfers go in pieces
 * or are refused. */
static uint64_t *split_exchange(void *ctx, const uint64_t *send, const size_t *count, size_t *received)
{
    (void)ctx;
    int ranks;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    uint64_t *out = malloc((size_t)ranks * sizeof *out), *in = malloc((size_t)ranks * sizeof *in);
    int *sc = malloc((size_t)ranks * 4 * sizeof *sc);
    uint64_t *got = NULL;
    if (!out || !in || !sc)
        goto done;
    int *sd = sc + ranks, *rc = sd + ranks, *rd = rc + ranks;
    for (int r = 0; r < ranks; r++)
        out[r] = count[r];
    MPI_Alltoall(out, 1, MPI_UINT64_T, in, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    uint64_t sent = 0, total = 0;
    for (int r = 0; r < ranks; r++) {
        if (sent > INT_MAX - out[r] || total > INT_MAX - in[r]) {
            fprintf(stderr, "error: more than %d updates between ranks in one level\n", INT_MAX);
            goto done;
        }
        sc[r] = (int)out[r];
        sd[r] = (int)sent;
        rc[r] = (int)in[r];
        rd[r] = (int)total;
        sent += out[r];
        total += in[r];
    }
    if (!(got = malloc((total ? total : 1) * sizeof *got)))
        goto done;
    MPI_Alltoallv(send, sc, sd, MPI_UINT64_T, got, rc, rd, MPI_UINT64_T, MPI_COMM_WORLD);
    *received = total;
done:
    free(out);
    free(in);
    free(sc);
    return got;
}

static int split_max(void *ctx, int value)
{
    (void)ctx;
    int top;
    MPI_Allreduce(&value, &top, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return top;
}

static bool split_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
    (void)ctx;
    enum { PIECE = 1 << 30 };
    for (size_t at = 0; at < bytes; at += PIECE)
        MPI_Bcast((char *)buf + at, (int)(bytes - at < PIECE ? bytes - at : PIECE), MPI_BYTE, root, MPI_COMM_WORLD);
    return true;
}

static bool split_send(void *ctx, void *buf, size_t bytes, int from, int to)
{
    (void)ctx;
    enum { PIECE = 1 << 30 };
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t at = 0; at < bytes && (rank == from || rank == to); at += PIECE) {
        int n = (int)(bytes - at < PIECE ? bytes - at : PIECE);
        if (rank == from && MPI_Send((char *)buf + at, n, MPI_BYTE, to, TAG_SHARE, MPI_COMM_WORLD) != MPI_SUCCESS)
            return false;
        if (rank == to &&
            MPI_Recv((char *)buf + at, n, MPI_BYTE, from, TAG_SHARE, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return false;
    }
    return true;
}

/* Every unit solved by all ranks together; then the work balance, printed by rank 0. */
static int run_split(const Variant *v, int pieces, const char *dir, int threads, const GenProgress *progress,
                     int rank, int ranks, char *err, size_t errlen)
{
    SolveSplit split = {.rank = rank, .ranks = ranks, .exchange = split_exchange, .max = split_max,
                        .broadcast = split_broadcast, .send = split_send};
    double t0 = system_now();
    int rc = gen_run_split(v, pieces, dir, threads, &split, false, rank == 0 ? progress : NULL, err, errlen);
    if (rc != DAMAS_OK)
        return rc;
    double mine[6] = {(double)split.owned, (double)split.propagated, (double)split.sent, (double)split.received,
                      system_now() - t0, system_peak_mib()};
    double *all = rank == 0 ? malloc((size_t)ranks * sizeof mine) : NULL;
    MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; all && r < ranks; r++) {
        const double *x = all + 6 * r;
        fprintf(stderr,
                "rank %d: %.0f positions owned, %.0f propagated, %.0f updates sent, %.0f received, %.1f s, "
                "peak memory %.0f MiB\n",
                r, x[0], x[1], x[2], x[3], x[4], x[5]);
    }
    free(all);
    return DAMAS_OK;
}

int gen_run_mpi(const Variant *v, int pieces, const char *dir, int threads, bool split, bool low_memory,
                const GenProgress *progress, int *rank, char *err, size_t errlen)
{
    int provided, ranks;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks == 1 && !split) {
        MPI_Finalize();
        return gen_run_split(v, pieces, dir, threads, NULL, low_memory, progress, err, errlen);
    }
    if (low_memory && !split) {
        MPI_Finalize();
        snprintf(err, errlen, "--low-memory with several ranks needs --split (units shared out whole are held whole)");
        return DAMAS_ERR_RANGE;
    }
    int rc = DAMAS_OK;
    /* The ranks that share this machine's memory. */
    MPI_Comm node;
    int node_ranks;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    Material units[DB_MAX_MATERIALS];
    bool on_disk[DB_MAX_MATERIALS] = {false};
    int n = gen_units(pieces, v->rules.board_size, units);
    for (int u = 0; u < n; u++)
        on_disk[u] = store_unit_exists(dir, units[u]);
    if (provided < MPI_THREAD_MULTIPLE && !split) {
        snprintf(err, errlen, "this MPI library does not support MPI_THREAD_MULTIPLE, which the scheduler on rank 0 needs");
        rc = DAMAS_ERR_RANGE;
    }
    /* Each rank checks its node's memory as if every rank shared it (the usual worst case). */
    if (rc == DAMAS_OK)
        rc = gen_check_memory(v, pieces, ranks, node_ranks, split, on_disk, err, errlen);
    /* Rank 0 writes or checks the manifest; the others only check it, after rank 0. */
    if (rc == DAMAS_OK && *rank == 0)
        rc = store_manifest(dir, v, true, err, errlen);
    int failed = rc != DAMAS_OK, any_failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any_failed && *rank != 0) {
        rc = store_manifest(dir, v, false, err, errlen);
        failed = rc != DAMAS_OK;
    }
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_failed) {
        /* A rank that failed says why before any rank exits: mpirun ends the job at the first
         * non-zero exit, which could otherwise cut that message off. */
        if (rc != DAMAS_OK) {
            fprintf(stderr, "error: %s\n", err);
            fflush(stderr);
            snprintf(err, errlen, "rank %d could not start", *rank);
        } else {
            snprintf(err, errlen, "another rank could not start (see its message)");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return rc == DAMAS_OK ? DAMAS_ERR_RANGE : rc;
    }
    if (split) {
        rc = run_split(v, pieces, dir, threads, progress, *rank, ranks, err, errlen);
        if (rc != DAMAS_OK) {
            fprintf(stderr, "error: rank %d: %s\n", *rank, err);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Finalize();
        return DAMAS_OK;
    }
    Schedule *s = NULL;
    pthread_t scheduler;
    if (*rank == 0) {
        s = calloc(1, sizeof *s);
        if (!s) {
            fprintf(stderr, "error: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        *s = (Schedule){.v = v, .dir = dir, .progress = progress, .ranks = ranks};
        s->n = gen_units(pieces, v->rules.board_size, s->units);
        if (pthread_create(&scheduler, NULL, schedule, s) != 0) {
            fprintf(stderr, "error: cannot start the scheduler thread\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    rc = work(v, dir, threads, pieces, err, errlen);
    if (rc != DAMAS_OK) {
        fprintf(stderr, "error: rank %d: %s\n", *rank, err);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (*rank == 0) {
        pthread_join(scheduler, NULL);
        free(s);
    }
    MPI_Finalize();
    return DAMAS_OK;
}
