#include "train.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/system.h"
#include "../core/variant.h"
#include "../db/probe.h"

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = *s ^ (*s >> 29);
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

/* Self-play openings: a built-in opening, then 2 to 5 random plies (fewer if the game ends). */
static void opening_for(const Variant *v, const Position *openings, int nopen, uint64_t seed, Position *out)
{
    *out = openings[next_random(&seed) % (uint64_t)nopen];
    int plies = 2 + (int)(next_random(&seed) % 4);
    for (int k = 0; k < plies; k++) {
        MoveList list;
        int n = movegen_moves(out, v, &list);
        if (n == 0)
            return;
        Undo u;
        pos_make(out, &list.moves[next_random(&seed) % (uint64_t)n], &u);
    }
}

static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

/* The evaluation before rounding, in hundredths of a man. */
static double predict(const Weights *w, const EvalFeatures *f)
{
    double opening = 0, endgame = 0;
    for (int k = 0; k < f->n; k++) {
        opening += f->value[k] * (double)w->w[0][f->index[k]];
        endgame += f->value[k] * (double)w->w[1][f->index[k]];
    }
    return f->phase * opening + (1 - f->phase) * endgame;
}

static void row_features(const Variant *v, const DatasetRow *r, EvalFeatures *f)
{
    Position pos = {{r->white, r->black}, r->kings, 0, r->side};
    eval_features(v, &pos, f);
}

/* What the fit aims at for a row: the game's result (or the database's value), blended with
 * the search's score when lambda > 0. */
static double target(const DatasetRow *r, double scale, double lambda)
{
    if (r->exact || r->score == DATASET_NO_SCORE || lambda <= 0)
        return r->label;
    return (1 - lambda) * r->label + lambda * sigmoid(r->score / scale);
}

static double cross_entropy(double p, double y)
{
    p = p < 1e-12 ? 1e-12 : p > 1 - 1e-12 ? 1 - 1e-12 : p;
    return -(y * log(p) + (1 - y) * log(1 - p));
}

enum { MAX_THREADS = 256 };

/* The mean loss of rows[index[k]] (index NULL: rows[k]) for k < n. Each thread sums a fixed
 * share and the shares are added in order, so the result does not depend on timing. */
static double loss_of(const Variant *v, const Weights *w, const DatasetRow *rows, const size_t *index, size_t n,
                      double scale, double lambda, int threads)
{
    double part[MAX_THREADS] = {0};
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t from = n * (size_t)t / (size_t)nt, to = n * (size_t)(t + 1) / (size_t)nt;
        double sum = 0;
        EvalFeatures f;
        for (size_t k = from; k < to; k++) {
            const DatasetRow *r = &rows[index ? index[k] : k];
            row_features(v, r, &f);
            sum += cross_entropy(sigmoid(predict(w, &f) / scale), target(r, scale, lambda));
        }
        part[t] = sum;
    }
    double sum = 0;
    for (int t = 0; t < threads; t++)
        sum += part[t];
    return n ? sum / (double)n : 0;
}

double train_loss(const Variant *v, const Weights *w, const DatasetRow *rows, size_t n, double scale, double lambda,
                  int threads)
{
    return loss_of(v, w, rows, NULL, n, scale, lambda, threads);
}

/* The scale that makes w's predictions fit the results best (Texel's K, as a divisor), by
 * golden-section search on its logarithm: the loss is unimodal in it. */
static double fit_scale(const Variant *v, const Weights *w, const DatasetRow *rows, const size_t *index, size_t n,
                        int threads)
{
    double lo = log(20.0), hi = log(3000.0), g = (sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double fa = loss_of(v, w, rows, index, n, exp(a), 0, threads), fb = loss_of(v, w, rows, index, n, exp(b), 0, threads);
    for (int k = 0; k < 30; k++) {
        if (fa < fb) {
            hi = b, b = a, fb = fa;
            a = hi - g * (hi - lo);
            fa = loss_of(v, w, rows, index, n, exp(a), 0, threads);
        } else {
            lo = a, a = b, fa = fb;
            b = lo + g * (hi - lo);
            fb = loss_of(v, w, rows, index, n, exp(b), 0, threads);
        }
    }
    return exp((lo + hi) / 2);
}

FitOptions train_fit_defaults(void)
{
    return (FitOptions){.epochs = 30, .patience = 3, .lambda = 0, .lr = 1.0, .l2 = 1e-7, .batch = 1024,
                        .threads = 1, .seed = 1};
}

/* The state of the optimiser: Adam's moments per weight and phase, the batch's gradient, and
 * which weights the batch touched (only those move: lazy Adam). */
typedef struct {
    int n;                  /* weights per phase; parameters are 2n, opening first */
    double *grad;
    float *m, *v;
    uint32_t *touched;
    uint8_t *seen, *fixed;
    int ntouched;
    EvalFeatures *features; /* of the batch */
    double *error;
} Adam;

static void adam_free(Adam *a)
{
    free(a->grad), free(a->m), free(a->v), free(a->touched), free(a->seen), free(a->fixed), free(a->features),
        free(a->error);
}

static bool adam_new(Adam *a, int n, int batch)
{
    size_t p = 2 * (size_t)n;
    *a = (Adam){n, calloc(p, sizeof(double)), calloc(p, sizeof(float)), calloc(p, sizeof(float)),
                malloc(p * sizeof(uint32_t)), calloc(p, 1), calloc(p, 1), 0,
                malloc((size_t)batch * sizeof(EvalFeatures)), malloc((size_t)batch * sizeof(double))};
    if (a->grad && a->m && a->v && a->touched && a->seen && a->fixed && a->features && a->error)
        return true;
    adam_free(a);
    return false;
}

static inline void adam_add(Adam *a, uint32_t p, double g)
{
    if (!a->seen[p]) {
        a->seen[p] = 1;
        a->touched[a->ntouched++] = p;
    }
    a->grad[p] += g;
}

/* One step over the batch rows[index[0..nb)]: the features and errors on every thread, the
 * gradient and the update on one (in a fixed order). Returns the batch's summed loss. */
static double adam_step(Adam *a, const Variant *v, Weights *w, const Weights *start, const DatasetRow *rows,
                        const size_t *index, int nb, double scale, const FitOptions *o, long step, long total)
{
    double loss = 0;
#pragma omp parallel for num_threads(o->threads) schedule(static) reduction(+ : loss)
    for (int k = 0; k < nb; k++) {
        const DatasetRow *r = &rows[index[k]];
        row_features(v, r, &a->features[k]);
        double p = sigmoid(predict(w, &a->features[k]) / scale), y = target(r, scale, o->lambda);
        a->error[k] = (p - y) / scale / nb;
        loss += cross_entropy(p, y);
    }
    for (int k = 0; k < nb; k++) {
        const EvalFeatures *f = &a->features[k];
        double e = a->error[k];
        for (int j = 0; j < f->n; j++) {
            uint32_t i = f->index[j];
            adam_add(a, i, e * f->value[j] * f->phase);
            adam_add(a, (uint32_t)a->n + i, e * f->value[j] * (1 - f->phase));
        }
    }
    const double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
    double lr = o->lr * (1 - 0.9 * (double)(step - 1) / (double)total);
    double c1 = 1 - pow(beta1, (double)step), c2 = 1 - pow(beta2, (double)step);
    for (int t = 0; t < a->ntouched; t++) {
        uint32_t p = a->touched[t];
        a->seen[p] = 0;
        double g = a->grad[p];
        a->grad[p] = 0;
        if (a->fixed[p])
            continue;
        float *wp = p < (uint32_t)a->n ? &w->w[0][p] : &w->w[1][p - (uint32_t)a->n];
        const float *sp = p < (uint32_t)a->n ? &start->w[0][p] : &start->w[1][p - (uint32_t)a->n];
        g += o->l2 * (*wp - *sp);
        a->m[p] = (float)(beta1 * a->m[p] + (1 - beta1) * g);
        a->v[p] = (float)(beta2 * a->v[p] + (1 - beta2) * g * g);
        *wp -= (float)(lr * (a->m[p] / c1) / (sqrt(a->v[p] / c2) + eps));
    }
    a->ntouched = 0;
    return loss;
}

int train_fit(const Variant *v, Weights *w, const DatasetRow *rows, size_t n, const FitOptions *o, FitReport *r,
              void (*progress)(void *ctx, const FitReport *r), void *ctx, char *err, size_t errlen)
{
    double t0 = system_now();
    memset(r, 0, sizeof *r);
    size_t *train = malloc((n ? n : 1) * sizeof *train), *held = malloc((n ? n : 1) * sizeof *held);
    Weights *start = malloc(sizeof *start), *best = malloc(sizeof *best);
    Adam a;
    int batch = o->batch > 0 ? o->batch : 1024;
    bool adam = adam_new(&a, w->layout.n, batch);
    if (!train || !held || !start || !best || !adam) {
        free(train), free(held), free(start), free(best);
        if (adam)
            adam_free(&a);
        snprintf(err, errlen, "out of memory for fitting %zu positions", n);
        return DAMAS_ERR_RANGE;
    }
    /* Positions of one game are alike: every twentieth game is held out whole (every second
     * to every nineteenth when the rows span fewer than 40 games). */
    uint32_t first = n ? rows[0].game : 0, last = first;
    for (size_t i = 0; i < n; i++) {
        first = rows[i].game < first ? rows[i].game : first;
        last = rows[i].game > last ? rows[i].game : last;
    }
    uint32_t span = last - first + 1, period = span >= 40 ? 20 : span / 2 < 2 ? 2 : span / 2;
    size_t ntrain = 0, nheld = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].game % period == period - 1)
            held[nheld++] = i;
        else
            train[ntrain++] = i;
    }
    r->train_rows = ntrain;
    r->heldout_rows = nheld;
    if (ntrain < 100 || nheld < 10) {
        free(train), free(held), free(start), free(best), adam_free(&a);
        snprintf(err, errlen, "too few positions to fit: %zu for fitting and %zu held out (at least 100 and 10)",
                 ntrain, nheld);
        return DAMAS_ERR_RANGE;
    }
    *start = *w;
    *best = *w;
    /* The man of the opening is the unit of every score; its weight stays. The endgame's is
     * fitted: a man is worth another share of the game's chances with less on the board. */
    a.fixed[w->layout.offset[EVAL_MATERIAL]] = 1;
    for (int g = 0; g < EVAL_GROUPS; g++)
        for (int k = 0; o->frozen >> g & 1 && k < w->layout.length[g]; k++)
            a.fixed[w->layout.offset[g] + k] = a.fixed[a.n + w->layout.offset[g] + k] = 1;
    uint64_t seed = o->seed;
    /* The scale from at most 100,000 positions (a random subset at the front: Fisher-Yates,
     * partly), before any weight moves, and again after each epoch. */
    size_t scale_sample = ntrain < 100000 ? ntrain : 100000;
    for (size_t i = 0; i < scale_sample; i++) {
        size_t j = i + (size_t)(next_random(&seed) % (uint64_t)(ntrain - i)), t = train[i];
        train[i] = train[j];
        train[j] = t;
    }
    r->scale = fit_scale(v, w, rows, train, scale_sample, o->threads);
    double scale = r->scale;
    r->start_loss = r->heldout_loss = loss_of(v, w, rows, held, nheld, r->scale, o->lambda, o->threads);
    long per_epoch = (long)((ntrain + (size_t)batch - 1) / (size_t)batch), total = per_epoch * o->epochs, step = 0;
    int worse = 0;
    for (int epoch = 1; epoch <= o->epochs; epoch++) {
        for (size_t i = ntrain - 1; i > 0; i--) {
            size_t j = (size_t)(next_random(&seed) % (uint64_t)(i + 1)), t = train[i];
            train[i] = train[j];
            train[j] = t;
        }
        double loss = 0;
        for (size_t b0 = 0; b0 < ntrain; b0 += (size_t)batch) {
            int nb = (int)(ntrain - b0 < (size_t)batch ? ntrain - b0 : (size_t)batch);
            loss += adam_step(&a, v, w, start, rows, train + b0, nb, scale, o, ++step, total);
        }
        /* The scale follows the weights (the opening man's weight is fixed, so the two are one model). */
        scale = fit_scale(v, w, rows, train, scale_sample, o->threads);
        double heldout = loss_of(v, w, rows, held, nheld, scale, o->lambda, o->threads);
        r->epoch = epoch;
        r->train_loss = loss / (double)ntrain;   /* during the epoch, as the weights moved */
        r->epoch_heldout = heldout;
        if (heldout < r->heldout_loss) {
            r->heldout_loss = heldout;
            r->scale = scale;
            *best = *w;
            worse = 0;
        } else {
            worse++;
        }
        r->seconds = system_now() - t0;
        if (progress)
            progress(ctx, r);
        if (worse >= o->patience)
            break;
    }
    *w = *best;
    free(train), free(held), free(start), free(best), adam_free(&a);
    return DAMAS_OK;
}

_Static_assert((int)MATCH_NO_SCORE == (int)DATASET_NO_SCORE, "a game's missing score is a row's missing score");

/* The quiet positions of game g (number `game` of the data set) as rows, labelled by the
 * result for the side to move, or by the database where it covers them. Returns the count. */
static int game_rows(const Variant *v, const Game *g, DbProbe *db, uint32_t game, DatasetRow *out)
{
    int db_pieces = db ? probe_pieces(db) : 0, n = 0;
    Position pos = g->start;
    for (int k = 0; k <= g->nmoves; k++) {
        if (movegen_quiet_count(&pos, v) > 0) {
            DatasetRow *r = &out[n++];
            *r = (DatasetRow){pos.pieces[WHITE], pos.pieces[BLACK], pos.kings, game, 0.5f,
                              k < g->nmoves ? g->scores[k] : DATASET_NO_SCORE, (uint8_t)pos.side, 0};
            if (g->result != RESULT_DRAW)
                r->label = (g->result == RESULT_WHITE) == (pos.side == WHITE) ? 1.0f : 0.0f;
            int wdl;
            if (db_pieces && pos_count(pos.pieces[0] | pos.pieces[1]) <= db_pieces &&
                probe_wdl(db, &pos, &wdl, NULL, 0) == DAMAS_OK) {
                r->label = wdl == DB_WIN ? 1.0f : wdl == DB_DRAW ? 0.5f : 0.0f;
                r->exact = 1;
            }
        }
        if (k < g->nmoves) {
            Undo u;
            pos_make(&pos, &g->moves[k], &u);
        }
    }
    return n;
}

int train_add_games(const Variant *v, Dataset *d, const Game *games, int n, DbProbe *db, char *err, size_t errlen)
{
    DatasetRow *buf = malloc((size_t)n * (MATCH_MAX_PLIES + 1) * sizeof *buf);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return DAMAS_ERR_NOMEM;
    }
    uint64_t first = dataset_games(d);
    size_t rows = 0;
    for (int g = 0; g < n; g++)
        rows += (size_t)game_rows(v, &games[g], db, (uint32_t)(first + (uint64_t)g), buf + rows);
    int rc = dataset_append(d, buf, rows, first + (uint64_t)n, err, errlen);
    free(buf);
    return rc;
}

int train_selfplay(const Variant *v, const Weights *w, Dataset *d, const SelfPlayOptions *o, uint64_t games,
                   uint64_t rows, void (*progress)(void *ctx, const SelfPlayReport *r), void *ctx, FILE *pdn,
                   char *err, size_t errlen)
{
    int threads = o->threads > 0 ? o->threads : 1, batch = 16 * threads;
    Position *openings = malloc(MATCH_OPENINGS_MAX * sizeof *openings);
    Game *played = malloc((size_t)batch * sizeof *played);
    DatasetRow *buf = malloc((size_t)batch * (MATCH_MAX_PLIES + 1) * sizeof *buf);
    if (!openings || !played || !buf) {
        free(openings), free(played), free(buf);
        snprintf(err, errlen, "out of memory for self-play");
        return DAMAS_ERR_RANGE;
    }
    int nopen = match_openings(v, 2, openings, MATCH_OPENINGS_MAX);
    double t0 = system_now();
    uint64_t done = 0;
    int rc = DAMAS_OK;
    while (rc == DAMAS_OK && (games || rows) && (!games || done < games) && (!rows || dataset_rows(d) < rows)) {
        uint64_t first = dataset_games(d);
        int nb = games && games - done < (uint64_t)batch ? (int)(games - done) : batch, failed = 0;
#pragma omp parallel num_threads(threads)
        {
            /* A small table: self-play searches a few thousand nodes, and clears it every game. */
            Search *s = search_new(v, w, o->db, SEARCH_TT_MB_SELFPLAY);
            if (!s)
                __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
#pragma omp for schedule(dynamic, 1)
            for (int g = 0; g < nb; g++) {
                if (!s)
                    continue;
                uint64_t seed = o->seed * 0x9E3779B97F4A7C15ull ^ ((first + (uint64_t)g) * 1000003u + 17), r = seed;
                Position start;
                opening_for(v, openings, nopen, seed, &start);
                SearchLimits limits = {.nodes = o->nodes + next_random(&r) % (o->nodes / 2 + 1)};
                Player self[2] = {{"self", w, NULL, NULL, 0, NULL}, {"self", w, NULL, NULL, 0, NULL}};
                Seat both[2] = {{s, NULL}, {s, NULL}};
                match_game(v, &start, self, both, &limits, seed, o->db, &played[g], NULL, 0);
            }
            search_free(s);
        }
        if (failed) {
            snprintf(err, errlen, "out of memory for the self-play searches");
            rc = DAMAS_ERR_RANGE;
            break;
        }
        size_t n = 0;
        for (int g = 0; g < nb; g++) {
            n += (size_t)game_rows(v, &played[g], o->db, (uint32_t)(first + (uint64_t)g), buf + n);
            if (pdn)
                match_write_pdn(pdn, v, &played[g], "damas self-play", "damas", "damas", (int)(first + (uint64_t)g + 1));
        }
        rc = dataset_append(d, buf, n, first + (uint64_t)nb, err, errlen);
        done += (uint64_t)nb;
        if (rc == DAMAS_OK && progress) {
            SelfPlayReport r = {dataset_games(d), dataset_rows(d), done, (double)done / (system_now() - t0)};
            progress(ctx, &r);
        }
    }
    free(openings), free(played), free(buf);
    return rc;
}

static void report(void (*fn)(void *ctx, const TrainReport *r), void *ctx, TrainReport *r, const char *stage,
                   double t0)
{
    r->stage = stage;
    r->seconds = system_now() - t0;
    if (fn)
        fn(ctx, r);
}

/* Passes the progress inside a stage on to train_run's report. */
typedef struct {
    void (*fn)(void *ctx, const TrainReport *r);
    void *ctx;
    TrainReport *r;
    double t0;
} StageRelay;

static void selfplay_relay(void *ctx, const SelfPlayReport *p)
{
    StageRelay *s = ctx;
    s->r->games = p->games;
    s->r->rows = p->rows;
    s->r->games_per_second = p->games_per_second;
    s->r->done = p->new_games;
    report(s->fn, s->ctx, s->r, "self-play", s->t0);
}

static void fit_relay(void *ctx, const FitReport *f)
{
    StageRelay *s = ctx;
    if (f != &s->r->fit)   /* (train_run's fit reports into r->fit itself) */
        s->r->fit = *f;
    s->r->done = (uint64_t)f->epoch;
    report(s->fn, s->ctx, s->r, "fitting", s->t0);
}

static void match_relay(void *ctx, const MatchResult *so_far)
{
    StageRelay *s = ctx;
    s->r->done = (uint64_t)so_far->games;
    s->r->elo = so_far->elo;
    s->r->elo_low = so_far->low;
    s->r->elo_high = so_far->high;
    report(s->fn, s->ctx, s->r, "match", s->t0);
}

SearchLimits train_match_limits(const TrainOptions *o)
{
    return o->match_seconds > 0 ? (SearchLimits){.seconds = o->match_seconds} : (SearchLimits){.nodes = o->nodes};
}

int train_run(const Variant *v, const Weights *start, Dataset *d, const TrainOptions *o,
              void (*report_fn)(void *ctx, const TrainReport *r), void *ctx, FILE *pdn, Weights *out, char *err,
              size_t errlen)
{
    double t0 = system_now();
    Weights *current = malloc(sizeof *current), *candidate = malloc(sizeof *candidate);
    Position *match_open = malloc((size_t)(o->match_games / 2 + 1) * sizeof *match_open);
    if (!current || !candidate || !match_open) {
        free(current), free(candidate), free(match_open);
        snprintf(err, errlen, "out of memory for training");
        return DAMAS_ERR_RANGE;
    }
    int nmatch = match_openings_for(v, o->match_games / 2, match_open, o->match_games / 2 + 1);
    *current = *start;
    SelfPlayOptions so = {o->nodes, o->threads, o->seed, o->db};
    SearchLimits limits = train_match_limits(o);
    int rc = nmatch > 0 ? DAMAS_OK : DAMAS_ERR_RANGE;
    if (rc != DAMAS_OK)
        snprintf(err, errlen, "out of memory for the match openings");
    for (int gen = 1; gen <= o->generations && rc == DAMAS_OK; gen++) {
        TrainReport r = {.generation = gen, .games = dataset_games(d), .rows = dataset_rows(d),
                         .total = (uint64_t)o->games, .current = current};
        StageRelay relay = {report_fn, ctx, &r, t0};
        report(report_fn, ctx, &r, "self-play", t0);
        double g0 = system_now();
        rc = train_selfplay(v, current, d, &so, (uint64_t)o->games, 0, report_fn ? selfplay_relay : NULL, &relay, pdn,
                            err, errlen);
        if (rc != DAMAS_OK)
            break;
        r.games = dataset_games(d);
        r.rows = dataset_rows(d);
        r.games_per_second = o->games / (system_now() - g0);
        r.done = 0;
        r.total = (uint64_t)o->fit.epochs;
        report(report_fn, ctx, &r, "fitting", t0);
        uint64_t use = o->window && o->window < r.rows ? o->window : r.rows;
        DatasetRow *rows = malloc((size_t)(use ? use : 1) * sizeof *rows);
        if (!rows) {
            snprintf(err, errlen, "out of memory for %llu positions", (unsigned long long)use);
            rc = DAMAS_ERR_RANGE;
            break;
        }
        rc = dataset_read(d, r.rows - use, (size_t)use, rows, err, errlen);
        *candidate = *current;
        FitOptions fo = o->fit;
        fo.seed = o->seed * 7919u + (uint64_t)gen;
        fo.threads = o->threads;
        if (rc == DAMAS_OK)
            rc = train_fit(v, candidate, rows, (size_t)use, &fo, &r.fit, report_fn ? fit_relay : NULL, &relay, err,
                           errlen);
        free(rows);
        if (rc != DAMAS_OK)
            break;
        r.done = 0;
        r.total = (uint64_t)o->match_games;
        report(report_fn, ctx, &r, "match", t0);
        Player players[2] = {{"new", candidate, NULL, NULL, 0, NULL}, {"current", current, NULL, NULL, 0, NULL}};
        MatchResult m;
        rc = match_run(v, players, match_open, nmatch, o->match_games, &limits, o->threads, o->seed + (uint64_t)gen,
                       o->db, NULL, &m, report_fn ? match_relay : NULL, &relay, err, errlen);
        if (rc != DAMAS_OK)
            break;
        r.elo = m.elo;
        r.elo_low = m.low;
        r.elo_high = m.high;
        r.accepted = m.wins + 0.5 * m.draws > 0.5 * m.games;
        if (r.accepted)
            *current = *candidate;
        report(report_fn, ctx, &r, "done", t0);
    }
    if (rc == DAMAS_OK)
        *out = *current;
    free(current), free(candidate), free(match_open);
    return rc;
}
