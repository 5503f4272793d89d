/* The search: iterative deepening principal-variation alpha-beta with a transposition table,
 * move ordering (table move, killers, history), capture sequences searched to the end
 * (quiescence), exact scores from endgame databases, the variant's draw rule and repetition.
 *
 * Scores are for the side to move in hundredths of a man, or SEARCH_WIN - n for a win that
 * ends the game n plies from the root (-(SEARCH_WIN - n) for a loss). A search with only a
 * depth or node limit is deterministic: the same position, history and limits give the same
 * result from a new or cleared Search. */
#ifndef DAMAS_ENGINE_SEARCH_H
#define DAMAS_ENGINE_SEARCH_H

#include "../db/probe.h"
#include "../eval/eval.h"
#include "../core/movegen.h"
#include "../core/game.h"
#include "../core/position.h"

enum {
    SEARCH_WIN = 30000,
    SEARCH_WIN_MIN = SEARCH_WIN - 1000,   /* scores beyond this are forced game ends */
    SEARCH_MAX_PLY = 128,
};

/* Transposition table sizes in MB: a search one waits for (analyze, play, hub), one game
 * thread's of a match, one self-play thread's (many short searches). */
enum { SEARCH_TT_MB = 64, SEARCH_TT_MB_MATCH = 16, SEARCH_TT_MB_SELFPLAY = 4 };

/* The largest contempt (search_set_contempt) the command line and the Hub engine take. */
enum { SEARCH_CONTEMPT_MAX = 1000 };

typedef struct {
    int depth;           /* iterations to complete; 0 = up to SEARCH_MAX_PLY - 1 */
    uint64_t nodes;      /* stop after this many nodes; 0 = no limit */
    double seconds;      /* stop after this much time; 0 = no limit */
    double soft;         /* with a game clock: no iteration begins after this much time;
                          * 0 = the move has `seconds` to itself and uses them all */
} SearchLimits;

typedef struct {
    int score;           /* of the last completed iteration */
    int depth;           /* the last completed iteration */
    int pv_length;
    Move pv[SEARCH_MAX_PLY];
    uint64_t nodes, db_hits;
    double seconds;
} SearchInfo;

typedef struct Search Search;

/* A search for variant v with weights w, database db (may be NULL) and a transposition table
 * of tt_mb megabytes (at least 1). NULL if memory runs out. One Search per thread. The search
 * lays *w out for evaluation and remembers evaluations: if *w changes, call search_clear before
 * the next search. */
Search *search_new(const Variant *v, const Weights *w, DbProbe *db, size_t tt_mb);
void search_free(Search *s);

/* Forgets everything learnt (table, history, evaluations) and lays *w out again: the next
 * search is as from search_new. */
void search_clear(Search *s);

/* Searches root within `limits`. `history` holds the hashes of the game's earlier positions,
 * oldest first (for repetitions), `clock` the draw rule's counts in root (core/game.h). Fills
 * *out (pv_length 0 and score from the evaluation if root has no move); calls report(ctx,
 * info) after each completed iteration if report is not NULL.
 * Returns the number of legal moves of root. */
int search_run(Search *s, const Position *root, const uint64_t *history, int nhistory, GameClock clock,
               const SearchLimits *limits, SearchInfo *out, void (*report)(void *ctx, const SearchInfo *info),
               void *ctx);

/* search_run from the current position of game g, with its history and counts. */
static inline int search_game(Search *s, const GameLog *g, const SearchLimits *limits, SearchInfo *out,
                              void (*report)(void *ctx, const SearchInfo *info), void *ctx)
{
    return search_run(s, game_pos(g), g->hashes, g->n, g->clock[g->n], limits, out, report, ctx);
}

/* How much worse than 0 a draw is for the side to move at the root, in hundredths of a man (and
 * how much better for its opponent): a draw by the draw rule, by repetition or by the database
 * then scores -contempt where the root's side is to move, so that it plays on in positions
 * it judges better than that, as against a weaker opponent. 0 (as from search_new, and the
 * default of `play`, `match` and the Hub engine) scores every draw 0: the objective value. A
 * change of contempt, or of the side to move at the root while it is not 0, empties the
 * transposition table (its scores were for the other). */
void search_set_contempt(Search *s, int contempt);

/* Asks the running search (from another thread), or the next one if it has not started yet, to
 * stop soon: it returns its last result. The request holds until search_resume. */
void search_stop(Search *s);
void search_resume(Search *s);

#endif
