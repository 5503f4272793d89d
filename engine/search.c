#include "search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/board.h"
#include "../core/memory.h"
#include "../core/system.h"
#include "../core/variant.h"

enum { BOUND_UPPER = 1, BOUND_LOWER = 2, BOUND_EXACT = 3 };

/* The half-width of the first aspiration window, in hundredths of a man; ProbCut's margin a
 * ply of depth, in hundredths of a man, and the depth of its search, in tenths of the node's. */
enum { SEARCH_ASPIRATION = 20, PROBCUT_MARGIN = 10, PROBCUT_DEPTH = 4 };

/* The evaluation cache: 2^16 entries of 8 bytes, small enough to stay in the L2 cache. */
enum { EVAL_CACHE_BITS = 16 };
_Static_assert(EVAL_CACHE_BITS >= 16, "the low 16 bits of an entry hold the score, not hash bits");

typedef struct {
    uint64_t key;
    Move move;
    int16_t score;
    int8_t depth;
    uint8_t bound;
} TTEntry;

struct Search {
    const Variant *v;
    const Weights *w;
    EvalTable table;                           /* *w laid out for eval_prepared */
    DbProbe *db;
    int db_pieces;
    TTEntry *tt;
    uint64_t tt_mask;
    uint64_t evals[1 << EVAL_CACHE_BITS];   /* hash's high bits | evaluation, 0 when empty */
    int history[64][64];
    int8_t lmr[64][64];                        /* reduction by depth and move number */
    Move killer[SEARCH_MAX_PLY][2];
    MoveList lists[SEARCH_MAX_PLY + 1];
    int order[SEARCH_MAX_PLY + 1][MOVELIST_MAX];
    int keys[MOVELIST_MAX];
    Move pv[SEARCH_MAX_PLY + 1][SEARCH_MAX_PLY + 1];
    int pv_length[SEARCH_MAX_PLY + 1];
    uint64_t hashes[SEARCH_MAX_PLY + 1024];   /* the game's positions, then the path */
    int nhashes;
    uint64_t nodes, node_limit, db_hits;
    double deadline, start;
    int stop;                                  /* set by a limit or by halt */
    int halt;                                  /* set by search_stop, cleared by search_resume */
    int root_score;                            /* of the root's best move so far */
    int contempt;                              /* see search_set_contempt */
    int contempt_side;                         /* the root's side the table's draw scores are for */
};

Search *search_new(const Variant *v, const Weights *w, DbProbe *db, size_t tt_mb)
{
    Search *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);   /* also faults its pages in now rather than during a search */
    uint64_t entries = 1;
    while (entries * 2 * sizeof(TTEntry) <= (tt_mb ? tt_mb : 1) << 20)
        entries *= 2;
    /* Huge pages: a random probe then rarely misses the TLB. */
    s->tt = mem_huge(entries * sizeof *s->tt);
    if (!s->tt) {
        free(s);
        return NULL;
    }
    /* Touch the table now: its pages would otherwise fault in one by one during the search. */
    memset(s->tt, 0, entries * sizeof *s->tt);
    s->tt_mask = entries - 1;
    s->v = v;
    s->w = w;
    eval_prepare(w, &s->table);
    for (int d = 0; d < 64; d++)
        for (int k = 0; k < 64; k++)
            s->lmr[d][k] = (int8_t)(d && k ? 0.5 + log(d) * log(k) / 2.25 : 0);
    s->db = db;
    s->db_pieces = db ? probe_pieces(db) : 0;
    return s;
}

void search_free(Search *s)
{
    if (s) {
        mem_release(s->tt);
        free(s);
    }
}

/* Empties the transposition table. */
static void tt_clear(Search *s)
{
    memset(s->tt, 0, (s->tt_mask + 1) * sizeof *s->tt);
}

void search_clear(Search *s)
{
    tt_clear(s);
    memset(s->history, 0, sizeof s->history);
    memset(s->killer, 0, sizeof s->killer);
    memset(s->evals, 0, sizeof s->evals);
    eval_prepare(s->w, &s->table);
}

void search_set_contempt(Search *s, int contempt)
{
    if (contempt != s->contempt)
        tt_clear(s);
    s->contempt = contempt;
}

/* A draw `ply` plies from the root, for the side to move there. */
static int draw_score(const Search *s, int ply)
{
    return ply & 1 ? s->contempt : -s->contempt;
}

void search_stop(Search *s)
{
    __atomic_store_n(&s->halt, 1, __ATOMIC_RELAXED);
}

void search_resume(Search *s)
{
    __atomic_store_n(&s->halt, 0, __ATOMIC_RELAXED);
}

static bool same_move(const Move *a, const Move *b)
{
    return a->from == b->from && a->to == b->to && a->captured == b->captured;
}

/* Scores that count plies to the end of the game are stored relative to the node. */
static int score_to_tt(int score, int ply)
{
    return score > SEARCH_WIN_MIN ? score + ply : score < -SEARCH_WIN_MIN ? score - ply : score;
}

static int score_from_tt(int score, int ply)
{
    return score > SEARCH_WIN_MIN ? score - ply : score < -SEARCH_WIN_MIN ? score + ply : score;
}

/* Whether a node or time limit or a stop request has been reached (then s->stop is set). */
static bool limits_reached(Search *s)
{
    if (s->node_limit && s->nodes >= s->node_limit)
        s->stop = 1;
    else if (s->deadline > 0 && (s->nodes & 1023) == 0 && system_now() >= s->deadline)
        s->stop = 1;
    else if (__atomic_load_n(&s->halt, __ATOMIC_RELAXED))
        s->stop = 1;
    return s->stop;
}

/* The evaluation (eval_prepared, scaled by eval_drawish), remembered: an entry holds the
 * hash's bits above the index and the score in its low 16 bits, so a hit is exact unless two
 * positions share 48 hash bits. */
static int evaluate(Search *s, const Position *pos)
{
    uint64_t *e = &s->evals[pos->hash & ((1u << EVAL_CACHE_BITS) - 1)];
    uint64_t tag = pos->hash & ~(uint64_t)0xffff;
    if ((*e & ~(uint64_t)0xffff) == tag && tag)
        return (int16_t)(*e & 0xffff);
    int score = eval_drawish(s->v, pos, eval_prepared(&s->table, s->v, pos));
    if (score == (int16_t)score && tag)   /* (a score beyond 16 bits, or tag 0, goes uncached) */
        *e = tag | (uint16_t)score;
    return score;
}

static int move_order_score(const Search *s, const Move *m, const Move *tt_move, int ply)
{
    if (tt_move && same_move(m, tt_move))
        return 1 << 30;
    if (same_move(m, &s->killer[ply][0]))
        return 1 << 29;
    if (same_move(m, &s->killer[ply][1]))
        return (1 << 29) - 1;
    return s->history[m->from][m->to];
}

/* Late-move reduction of the k-th move m: the quiet moves ordered after the table move and the
 * killers are searched shallower, more so the later they come and the deeper the node, unless
 * they promote. A move that offers the opponent a capture is reduced like any other: the
 * exchanges it starts are searched beyond the horizon (quiescence, below). A reduced move that
 * beats alpha is searched again at full depth. */
static int reduction(const Search *s, const Move *m, int depth, int k, bool pv_node, bool capture)
{
    if (capture || depth < 3 || k < 3 || (m->flags & MOVE_PROMOTES))
        return 0;
    int r = s->lmr[depth < 64 ? depth : 63][k < 64 ? k : 63] - pv_node;
    return r < 0 ? 0 : r > depth - 2 ? depth - 2 : r;
}

/* Whether the opponent of the side to move could capture, were it its turn. */
static bool threatened(const Search *s, const Position *pos)
{
    Position other = *pos;
    other.side ^= 1;
    return movegen_has_capture(&other, s->v);
}

/* Whether the quiet move m of pos offers an exchange: the opponent must then capture, each of
 * its captures takes one piece, and after each of them the side that moved can take back. The
 * move list of ply + 1 serves as scratch. */
static bool offers_exchange(Search *s, const Position *pos, const Move *m, int ply)
{
    Position after;
    pos_after(pos, m, &after);
    if (!movegen_has_capture(&after, s->v))
        return false;
    MoveList *replies = &s->lists[ply + 1];
    int n = movegen_moves(&after, s->v, replies);
    for (int i = 0; i < n; i++) {
        Position back;
        if (__builtin_popcountll(replies->moves[i].captured) != 1)
            return false;
        pos_after(&after, &replies->moves[i], &back);
        if (!movegen_has_capture(&back, s->v))
            return false;
    }
    return n > 0;
}

static int negamax(Search *s, Position *pos, int alpha, int beta, int depth, int ply, GameClock clock, bool prune);

/* A quiet position beyond the horizon with no king on the board, as Scan searches it: the
 * evaluation stands unless an exchange the side to move offers, or a promotion, does better
 * (the exchange's captures follow in the search, and after them the same again).
 * `unthreatened`: the caller found that the opponent could not capture, were it its turn. */
static int quiescence(Search *s, Position *pos, int alpha, int beta, int depth, int ply, GameClock clock, bool prune,
                      bool unthreatened)
{
    int best = evaluate(s, pos);
    if (best >= beta)
        return best;
    if (best > alpha)
        alpha = best;
    /* Unless the opponent can already capture, a capture a move gives it (men only: no king is
     * on the board) jumps the man that moved or lands where it stood: a move whose squares are
     * not next to, or two steps from, an opponent's man offers none. */
    const Board *b = variant_board(s->v);
    Bitboard next = b->all, two = b->all;
    if (unthreatened || !threatened(s, pos)) {
        next = two = 0;
        for (int d = 0; d < 4; d++) {
            Bitboard step = board_shift(b, pos->pieces[pos->side ^ 1], b->step[d]);
            next |= step;
            two |= board_shift(b, step, b->step[d]);
        }
    }
    int n = movegen_moves(pos, s->v, &s->lists[ply]);
    for (int k = 0; k < n; k++) {
        const Move m = s->lists[ply].moves[k];
        if (!(m.flags & MOVE_PROMOTES) &&
            (!((next >> m.to & 1) || (two >> m.from & 1)) || !offers_exchange(s, pos, &m, ply)))
            continue;
        GameClock child_clock = game_clock_after(clock, pos, &m);
        Undo u;
        pos_make(pos, &m, &u);
        s->hashes[s->nhashes++] = pos->hash;
        int score = -negamax(s, pos, -beta, -alpha, depth - 1, ply + 1, child_clock, prune);
        s->nhashes--;
        pos_undo(pos, &m, &u);
        if (s->stop)
            return 0;
        if (score > best) {
            best = score;
            if (score > alpha)
                alpha = score;
            if (score >= beta)
                break;
        }
    }
    return best;
}

/* The score of pos for the side to move within (alpha, beta), searched `depth` plies (and
 * captures beyond), `ply` plies from the root, `clock` the draw rule's counts;
 * `prune` allows ProbCut below. */
static int negamax(Search *s, Position *pos, int alpha, int beta, int depth, int ply, GameClock clock, bool prune)
{
    s->nodes++;
    s->pv_length[ply] = ply;
    if (limits_reached(s))
        return 0;
    if (ply > 0) {
        if (game_draw_rule(s->v, pos, clock) || game_repetitions(s->hashes, s->nhashes, clock.reversible) > 0)
            return draw_score(s, ply);
    }
    /* At the horizon with nothing to capture, the evaluation stands (or, with no king on the
     * board, the quiescence search above), unless the side to move has no move at all, or, on
     * the horizon itself, the opponent threatens a capture: then every move is searched one
     * ply further, to see whether it parries. */
    bool threat = false;
    if (depth <= 0 || ply >= SEARCH_MAX_PLY - 1) {
        int quiet = movegen_quiet_count(pos, s->v);
        if (quiet == 0)
            return -(SEARCH_WIN - ply);
        if (quiet > 0 && (!s->db || pos_count(pos->pieces[0] | pos->pieces[1]) > s->db_pieces)) {
            threat = depth == 0 && ply < SEARCH_MAX_PLY - 1 && threatened(s, pos);
            if (!threat && !pos->kings && ply < SEARCH_MAX_PLY - 2)
                return quiescence(s, pos, alpha, beta, depth, ply, clock, prune, depth == 0);
            if (!threat)
                return evaluate(s, pos);
        }
    }
    MoveList *list = &s->lists[ply];
    int n = movegen_moves(pos, s->v, list);
    if (n == 0)
        return -(SEARCH_WIN - ply);
    if (ply >= SEARCH_MAX_PLY - 1)
        return evaluate(s, pos);
    bool capture = list->moves[0].captured != 0;
    if (ply > 0 && s->db && !capture && pos_count(pos->pieces[0] | pos->pieces[1]) <= s->db_pieces) {
        DbValue v;
        if (probe_value(s->db, pos, &v, NULL, 0) == DAMAS_OK) {
            s->db_hits++;
            return v.wdl == DB_DRAW ? draw_score(s, ply) : v.wdl == DB_WIN ? SEARCH_WIN - ply - v.dtw : -(SEARCH_WIN - ply - v.dtw);
        }
    }
    if (depth <= 0 && !capture && !threat)
        return evaluate(s, pos);
    TTEntry *e = &s->tt[pos->hash & s->tt_mask];
    const Move *tt_move = NULL;
    if (e->key == pos->hash) {
        tt_move = &e->move;
        int score = score_from_tt(e->score, ply);
        if (ply > 0 && e->depth >= depth &&
            (e->bound == BOUND_EXACT || (e->bound == BOUND_LOWER && score >= beta) ||
             (e->bound == BOUND_UPPER && score <= alpha)))
            return score;
    }
    /* ProbCut: at a node off the principal variation, a shallow search (PROBCUT_DEPTH tenths of
     * the depth, without ProbCut of its own) that beats beta by PROBCUT_MARGIN a ply is taken as
     * proof of a cut. It searches this position as if one ply deeper, so that its move lists
     * and lines do not overwrite this node's. */
    bool pv_node = beta - alpha > 1;
    int margin = depth * PROBCUT_MARGIN;
    if (prune && !pv_node && depth >= 3 && !capture && ply > 0 && beta > -SEARCH_WIN_MIN &&
        beta + margin < SEARCH_WIN_MIN) {
        int pc_beta = beta + margin;
        int score = negamax(s, pos, pc_beta - 1, pc_beta, depth * PROBCUT_DEPTH / 10, ply + 1, clock, false);
        if (s->stop)
            return 0;
        if (score >= pc_beta)
            return score - margin;
    }
    int *order = s->order[ply], *keys = s->keys;
    for (int i = 0; i < n; i++) {
        int key = move_order_score(s, &list->moves[i], tt_move, ply), j = i;
        for (; j > 0 && keys[j - 1] < key; j--) {
            keys[j] = keys[j - 1];
            order[j] = order[j - 1];
        }
        keys[j] = key;
        order[j] = i;
    }
    /* A forced move (one legal move) or a capture beyond the horizon costs no depth. */
    int next_depth = threat ? -1 : n == 1 || (capture && depth <= 0) ? depth : depth - 1;
    int best = -SEARCH_WIN - 1, original_alpha = alpha;
    Move best_move = list->moves[order[0]];
    for (int k = 0; k < n; k++) {
        const Move m = s->lists[ply].moves[s->order[ply][k]];
        GameClock child_clock = game_clock_after(clock, pos, &m);
        Undo u;
        pos_make(pos, &m, &u);
        /* The child's table entry and evaluation cache entry are cache misses in large
         * tables: start loading them now. */
        __builtin_prefetch(&s->tt[pos->hash & s->tt_mask]);
        __builtin_prefetch(&s->evals[pos->hash & ((1u << EVAL_CACHE_BITS) - 1)]);
        s->hashes[s->nhashes++] = pos->hash;
        int score;
        if (k == 0) {
            score = -negamax(s, pos, -beta, -alpha, next_depth, ply + 1, child_clock, prune);
        } else {
            int r = reduction(s, &m, depth, k, pv_node, capture);
            score = -negamax(s, pos, -alpha - 1, -alpha, next_depth - r, ply + 1, child_clock, prune);
            if (r && score > alpha)
                score = -negamax(s, pos, -alpha - 1, -alpha, next_depth, ply + 1, child_clock, prune);
            if (score > alpha && score < beta)
                score = -negamax(s, pos, -beta, -alpha, next_depth, ply + 1, child_clock, prune);
        }
        s->nhashes--;
        pos_undo(pos, &m, &u);
        if (s->stop)
            return 0;
        if (score > best) {
            best = score;
            best_move = m;
            if (score > alpha) {
                alpha = score;
                if (ply == 0)
                    s->root_score = score;
                s->pv[ply][ply] = m;
                memcpy(&s->pv[ply][ply + 1], &s->pv[ply + 1][ply + 1],
                       (size_t)(s->pv_length[ply + 1] - ply - 1) * sizeof(Move));
                s->pv_length[ply] = s->pv_length[ply + 1];
                if (score >= beta) {
                    if (!m.captured) {
                        if (!same_move(&m, &s->killer[ply][0])) {
                            s->killer[ply][1] = s->killer[ply][0];
                            s->killer[ply][0] = m;
                        }
                        int *h = &s->history[m.from][m.to];
                        *h += depth * depth;
                        if (*h > (1 << 28))
                            for (int a = 0; a < 64; a++)
                                for (int b = 0; b < 64; b++)
                                    s->history[a][b] /= 2;
                    }
                    break;
                }
            }
        }
    }
    if (depth >= e->depth || e->key != pos->hash) {
        e->key = pos->hash;
        e->move = best_move;
        e->score = (int16_t)score_to_tt(best, ply);
        e->depth = (int8_t)(depth < 0 ? 0 : depth > 127 ? 127 : depth);
        e->bound = best >= beta ? BOUND_LOWER : best > original_alpha ? BOUND_EXACT : BOUND_UPPER;
    }
    return best;
}

/* An iteration at the root: from the fourth on, in a window around the last score that widens
 * on each side it fails (aspiration), since most iterations move the score little. */
static int root_search(Search *s, Position *pos, int depth, int last, GameClock clock)
{
    if (depth < 4 || last > SEARCH_WIN_MIN || last < -SEARCH_WIN_MIN)
        return negamax(s, pos, -SEARCH_WIN - 1, SEARCH_WIN + 1, depth, 0, clock, true);
    int delta = SEARCH_ASPIRATION, alpha = last - delta, beta = last + delta;
    for (;;) {
        int score = negamax(s, pos, alpha, beta, depth, 0, clock, true);
        if (s->stop)
            return score;
        if (score <= alpha)
            alpha = score - delta < -SEARCH_WIN_MIN ? -SEARCH_WIN - 1 : score - delta;
        else if (score >= beta)
            beta = score + delta > SEARCH_WIN_MIN ? SEARCH_WIN + 1 : score + delta;
        else
            return score;
        delta *= 2;
    }
}

int search_run(Search *s, const Position *root, const uint64_t *history, int nhistory, GameClock clock,
               const SearchLimits *limits, SearchInfo *out, void (*report)(void *ctx, const SearchInfo *info),
               void *ctx)
{
    memset(out, 0, sizeof *out);
    s->start = system_now();
    s->deadline = limits->seconds > 0 ? s->start + limits->seconds : 0;
    s->node_limit = limits->nodes;
    s->nodes = s->db_hits = 0;
    s->stop = 0;
    s->root_score = 0;
    /* The table's draw scores are for one side at the root: the other's must not read them. */
    if (s->contempt && root->side != s->contempt_side) {
        tt_clear(s);
        s->contempt_side = root->side;
    }
    /* Only the positions since the last capture or man's move can repeat. */
    int keep = nhistory < clock.reversible ? nhistory : clock.reversible;
    if (keep > (int)(sizeof s->hashes / sizeof *s->hashes) - SEARCH_MAX_PLY - 1)
        keep = (int)(sizeof s->hashes / sizeof *s->hashes) - SEARCH_MAX_PLY - 1;
    if (keep > 0)
        memcpy(s->hashes, history + nhistory - keep, (size_t)keep * sizeof *history);
    s->nhashes = keep;
    s->hashes[s->nhashes++] = root->hash;
    MoveList list;
    int n = movegen_moves(root, s->v, &list);
    if (n == 0) {
        out->score = -SEARCH_WIN;
        return 0;
    }
    int max_depth = limits->depth > 0 && limits->depth < SEARCH_MAX_PLY - 1 ? limits->depth : SEARCH_MAX_PLY - 1;
    /* A forced move in a timed game is played at once: one iteration gives it a score. */
    if (n == 1 && limits->seconds > 0)
        max_depth = 1;
    Position pos = *root;
    for (int depth = 1; depth <= max_depth; depth++) {
        int score = root_search(s, &pos, depth, out->score, clock);
        /* A cut-off iteration still counts where its root completed a move better than the
         * first (the last iteration's best): a root move is only taken once fully searched. */
        if (s->stop && depth > 1 && !(s->pv_length[0] > 0 && !same_move(&s->pv[0][0], &out->pv[0])))
            break;
        out->score = s->stop ? s->root_score : score;
        out->depth = depth;
        out->pv_length = s->pv_length[0];
        memcpy(out->pv, s->pv[0], (size_t)out->pv_length * sizeof(Move));
        out->nodes = s->nodes;
        out->db_hits = s->db_hits;
        out->seconds = system_now() - s->start;
        if (report && out->pv_length > 0)
            report(ctx, out);
        if (s->stop || score > SEARCH_WIN_MIN || score < -SEARCH_WIN_MIN)
            break;
        /* With a clock, time saved now is time for later moves: the next iteration takes a few
         * times this one, and one begun late would most likely be cut off unfinished. */
        if (limits->soft > 0 && system_now() - s->start > limits->soft)
            break;
    }
    out->nodes = s->nodes;
    out->db_hits = s->db_hits;
    out->seconds = system_now() - s->start;
    if (out->pv_length == 0) {   /* stopped inside the first iteration: any legal move */
        out->pv[0] = list.moves[0];
        out->pv_length = 1;
    }
    return n;
}
