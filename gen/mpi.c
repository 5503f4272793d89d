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
 * a killed rank makes mpirun end the job. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen.h"

enum { TAG_REPORT = 1, TAG_WORK = 2, STOP = -1 };

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
        double t0 = gen_now();
        /* The units it needs, theirs in turn (loading a unit restores its don't-care values
         * from the units its captures lead to), in order. */
        bool need[DB_MAX_MATERIALS] = {false};
        need[unit] = true;
        for (int x = unit; x >= 0; x--)
            for (int d = 0; need[x] && d < x; d++)
                need[d] |= gen_unit_needs(units[x], units[d]);
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
        rep = (Report){unit, times, gen_now() - t0};
        /* Drop what no unit left to solve needs: every unit that needs it is on disk (a
         * unit given out later reloads what it needs). */
        bool on_disk[DB_MAX_MATERIALS];
        for (int u = 0; u < n; u++)
            on_disk[u] = store_unit_exists(dir, units[u]);
        for (int d = 0; d < n; d++) {
            bool needed = false;
            for (int u = d + 1; loaded[d] && u < n && !needed; u++)
                needed = !on_disk[u] && gen_unit_needs(units[u], units[d]);
            if (loaded[d] && !needed) {
                dbset_drop(set, units[d]);
                loaded[d] = false;
            }
        }
    }
    dbset_free(set);
    free(set);
    return rc;
}

int gen_run_mpi(const Variant *v, int pieces, const char *dir, int threads, const GenProgress *progress,
                int *rank, char *err, size_t errlen)
{
    int provided, ranks;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks == 1) {
        MPI_Finalize();
        return gen_run(v, pieces, dir, threads, progress, err, errlen);
    }
    int rc = DAMAS_OK;
    if (provided < MPI_THREAD_MULTIPLE) {
        snprintf(err, errlen, "this MPI library does not support MPI_THREAD_MULTIPLE, which the scheduler on rank 0 needs");
        rc = DAMAS_ERR_RANGE;
    }
    /* Each rank checks its node's memory as if every rank shared it (the usual worst case). */
    if (rc == DAMAS_OK)
        rc = gen_check_memory(v, pieces, ranks, err, errlen);
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
        if (rc == DAMAS_OK)
            snprintf(err, errlen, "another rank could not start (see its message)");
        MPI_Finalize();
        return rc == DAMAS_OK ? DAMAS_ERR_RANGE : rc;
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
