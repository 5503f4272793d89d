#include "train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/variant.h"

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t x = *s ^ (*s >> 29);
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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

static double sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

double train_loss(const Weights *w, const Sample *samples, int n, double scale)
{
    double loss = 0;
    for (int i = 0; i < n; i++) {
        double p = sigmoid(predict(w, &samples[i].f) / scale), y = samples[i].label;
        p = p < 1e-12 ? 1e-12 : p > 1 - 1e-12 ? 1 - 1e-12 : p;
        loss -= y * log(p) + (1 - y) * log(1 - p);
    }
    return n ? loss / n : 0;
}

double train_scale(const Weights *w, const Sample *samples, int n)
{
    /* Golden-section search on log(scale): the loss is unimodal in it. */
    double lo = log(20.0), hi = log(3000.0), g = (sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double fa = train_loss(w, samples, n, exp(a)), fb = train_loss(w, samples, n, exp(b));
    for (int k = 0; k < 40; k++) {
        if (fa < fb) {
            hi = b, b = a, fb = fa;
            a = hi - g * (hi - lo);
            fa = train_loss(w, samples, n, exp(a));
        } else {
            lo = a, a = b, fa = fb;
            b = lo + g * (hi - lo);
            fb = train_loss(w, samples, n, exp(b));
        }
    }
    return exp((lo + hi) / 2);
}

double train_fit(Weights *w, const Sample *samples, int n_train, const Sample *held, int n_held, int epochs,
                 double scale, const int *frozen, int nfrozen, uint64_t seed, double *train_loss_out)
{
    int n = w->layout.n, params = 2 * n;
    double *m = calloc((size_t)params, sizeof *m), *v = calloc((size_t)params, sizeof *v),
           *grad = calloc((size_t)params, sizeof *grad);
    int *order = malloc((size_t)(n_train ? n_train : 1) * sizeof *order);
    bool *fixed = calloc((size_t)params, sizeof *fixed);
    Weights *start = malloc(sizeof *start), *best = malloc(sizeof *best);
    if (!m || !v || !grad || !order || !fixed || !start || !best) {
        free(m), free(v), free(grad), free(order), free(fixed), free(start), free(best);
        *train_loss_out = NAN;
        return NAN;
    }
    *start = *w;
    *best = *w;
    for (int k = 0; k < nfrozen; k++)
        fixed[frozen[k]] = fixed[n + frozen[k]] = true;
    for (int i = 0; i < n_train; i++)
        order[i] = i;
    /* l2 is small because the loss gradients are: a weight 100 away from its start is pulled
     * back by 1e-5, about what a clear signal in the data gives. */
    const double lr0 = 2.0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, l2 = 1e-7;
    const int batch = 256;
    /* The step shrinks linearly to zero: with a constant one, the many rarely-seen weights keep
     * wandering by about the step and the fit never settles. */
    long total_steps = (long)epochs * ((n_train + batch - 1) / batch);
    long step = 0;
    double best_heldout = n_held ? train_loss(w, held, n_held, scale) : train_loss(w, samples, n_train, scale);
    for (int epoch = 0; epoch < epochs; epoch++) {
        for (int i = n_train - 1; i > 0; i--) {   /* Fisher-Yates, from the seed */
            int j = (int)(next_random(&seed) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int b0 = 0; b0 < n_train; b0 += batch) {
            int b1 = b0 + batch < n_train ? b0 + batch : n_train;
            memset(grad, 0, (size_t)params * sizeof *grad);
            for (int k = b0; k < b1; k++) {
                const Sample *s = &samples[order[k]];
                double e = (sigmoid(predict(w, &s->f) / scale) - s->label) / scale / (b1 - b0);
                for (int j = 0; j < s->f.n; j++) {
                    int i = s->f.index[j];
                    grad[i] += e * s->f.value[j] * s->f.phase;
                    grad[n + i] += e * s->f.value[j] * (1 - s->f.phase);
                }
            }
            step++;
            double lr = lr0 * (1 - (double)(step - 1) / (double)total_steps);
            double c1 = 1 - pow(beta1, (double)step), c2 = 1 - pow(beta2, (double)step);
            for (int p = 0; p < params; p++) {
                if (fixed[p])
                    continue;
                float *wp = p < n ? &w->w[0][p] : &w->w[1][p - n];
                const float *sp = p < n ? &start->w[0][p] : &start->w[1][p - n];
                double g = grad[p] + l2 * (*wp - *sp);
                m[p] = beta1 * m[p] + (1 - beta1) * g;
                v[p] = beta2 * v[p] + (1 - beta2) * g * g;
                *wp -= (float)(lr * (m[p] / c1) / (sqrt(v[p] / c2) + eps));
            }
        }
        double heldout = n_held ? train_loss(w, held, n_held, scale) : train_loss(w, samples, n_train, scale);
        if (heldout < best_heldout) {   /* early stopping on the held-out positions */
            best_heldout = heldout;
            *best = *w;
        }
    }
    *w = *best;
    *train_loss_out = train_loss(w, samples, n_train, scale);
    free(m), free(v), free(grad), free(order), free(fixed), free(start), free(best);
    return best_heldout;
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

/* Labelled quiet positions of a game: the result for the side to move, or the database's
 * value where it covers the position. Returns the count added (at most max). */
static int label_game(const Variant *v, const Game *g, DbProbe *db, Sample *out, int max)
{
    int db_pieces = db ? probe_pieces(db) : 0, n = 0;
    Position pos = g->start;
    for (int k = 0; k <= g->nmoves && n < max; k++) {
        if (movegen_quiet_count(&pos, v) > 0) {
            float label = g->result == RESULT_DRAW ? 0.5f : (g->result == RESULT_WHITE) == (pos.side == WHITE) ? 1 : 0;
            int wdl;
            if (db_pieces && pos_count(pos.pieces[0] | pos.pieces[1]) <= db_pieces &&
                probe_wdl(db, &pos, &wdl, NULL, 0) == DAMAS_OK)
                label = wdl == DB_WIN ? 1 : wdl == DB_DRAW ? 0.5f : 0;
            eval_features(v, &pos, &out[n].f);
            out[n++].label = label;
        }
        if (k < g->nmoves) {
            Undo u;
            pos_make(&pos, &g->moves[k], &u);
        }
    }
    return n;
}

enum { TRAIN_POOL = 200000, HELD_POOL = 25000 };

typedef struct {
    Sample *s;
    int n, next, cap;       /* filled, where the next goes (oldest first once full), room */
} Pool;

static void pool_add(Pool *p, const Sample *s, int n)
{
    for (int k = 0; k < n; k++) {
        p->s[p->next] = s[k];
        p->next = (p->next + 1) % p->cap;
        p->n += p->n < p->cap;
    }
}

static void report(const TrainHooks *h, TrainReport *r, const char *stage, double t0)
{
    r->stage = stage;
    r->seconds = now() - t0;
    if (h && h->report)
        h->report(h->ctx, r);
}

int train_run(const Variant *v, const Weights *start, const TrainOptions *o, const TrainHooks *hooks, Weights *out,
              char *err, size_t errlen)
{
    double t0 = now();
    Position *openings = malloc(4096 * sizeof *openings), *starts = malloc((size_t)o->games * sizeof *starts);
    Game *games = malloc((size_t)o->games * sizeof *games);
    /* Positions of every generation so far are kept (the oldest replaced when full): a fit on
     * one generation's games alone follows their noise. */
    Pool train = {malloc(TRAIN_POOL * sizeof(Sample)), 0, 0, TRAIN_POOL},
         held = {malloc(HELD_POOL * sizeof(Sample)), 0, 0, HELD_POOL};
    Sample *scratch = malloc(MATCH_MAX_PLIES * sizeof *scratch);
    bool pools = train.s && held.s && scratch;
    Weights *current = malloc(sizeof *current), *candidate = malloc(sizeof *candidate);
    if (!openings || !starts || !games || !pools || !current || !candidate) {
        free(openings), free(starts), free(games), free(train.s), free(held.s), free(scratch), free(current),
            free(candidate);
        snprintf(err, errlen, "out of memory for %d games a generation", o->games);
        return DAMAS_ERR_RANGE;
    }
    /* Self-play starts from these plus random plies; the acceptance match from a spread of
     * positions with as many as it has game pairs. */
    int nopen = match_openings(v, 2, openings, 4096);
    Position *match_open = malloc((size_t)(o->match_games / 2 + 1) * sizeof *match_open);
    int nmatch = match_open ? match_openings_for(v, o->match_games / 2, match_open, o->match_games / 2 + 1) : 0;
    *current = *start;
    int frozen[1] = {start->layout.offset[EVAL_MATERIAL]};   /* the man: the scale of every score */
    SearchLimits limits = {0, o->nodes, 0};
    int rc = DAMAS_OK;
    for (int gen = 1; gen <= o->generations && rc == DAMAS_OK; gen++) {
        TrainReport r = {.generation = gen, .games = o->games};
        report(hooks, &r, "self-play", t0);
        double g0 = now();
        uint64_t seed = o->seed * 7919u + (uint64_t)gen;
        for (int g = 0; g < o->games; g++)
            opening_for(v, openings, nopen, seed * 1000003u + (uint64_t)g, &starts[g]);
        bool failed = false;
#pragma omp parallel num_threads(o->threads)
        {
            Search *s = search_new(v, current, o->db, 16);
            failed |= !s;
#pragma omp for schedule(dynamic, 1)
            for (int g = 0; g < o->games; g++) {
                if (failed)
                    continue;
                Player self[2] = {{"self", current, NULL}, {"self", current, NULL}};
                Seat both[2] = {{s, NULL}, {s, NULL}};
                match_game(v, &starts[g], self, both, &limits, seed + (uint64_t)g, o->db, &games[g], NULL, 0);
            }
            search_free(s);
        }
        if (failed) {
            snprintf(err, errlen, "out of memory for the searches");
            rc = DAMAS_ERR_RANGE;
            break;
        }
        r.games_per_second = o->games / (now() - g0);
        if (hooks && hooks->pdn)
            for (int g = 0; g < o->games; g++)
                match_write_pdn(hooks->pdn, v, &games[g], "damas self-play", "damas", "damas",
                                (gen - 1) * o->games + g + 1);
        /* Every tenth game goes to the held-out positions: positions of one game are alike. */
        int n = 0;
        for (int g = 0; g < o->games; g++) {
            int k = label_game(v, &games[g], o->db, scratch, MATCH_MAX_PLIES);
            pool_add(g % 10 == 9 ? &held : &train, scratch, k);
            n += k;
        }
        r.positions = n;
        report(hooks, &r, "fitting", t0);
        *candidate = *current;
        /* The scale first (Texel's K), so that the fit does not bend the weights toward another. */
        double scale = train_scale(current, train.s, train.n);
        r.heldout_loss = train_fit(candidate, train.s, train.n, held.s, held.n, o->epochs, scale, frozen, 1, seed,
                                   &r.train_loss);
        report(hooks, &r, "match", t0);
        Player players[2] = {{"new", candidate, NULL}, {"current", current, NULL}};
        MatchResult m;
        if (nmatch == 0) {
            snprintf(err, errlen, "out of memory for the match");
            rc = DAMAS_ERR_RANGE;
            break;
        }
        if (match_run(v, players, match_open, nmatch, o->match_games, &limits, o->threads, seed, o->db, NULL, &m,
                      NULL, NULL, err, errlen) != DAMAS_OK) {
            rc = DAMAS_ERR_RANGE;
            break;
        }
        r.elo = m.elo;
        r.elo_low = m.low;
        r.elo_high = m.high;
        r.accepted = m.wins + 0.5 * m.draws > 0.5 * m.games;
        if (r.accepted)
            *current = *candidate;
        report(hooks, &r, "done", t0);
    }
    if (rc == DAMAS_OK)
        *out = *current;
    free(openings), free(match_open), free(starts), free(games), free(train.s), free(held.s), free(scratch),
        free(current), free(candidate);
    return rc;
}
