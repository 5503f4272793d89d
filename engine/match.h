/* Games between two players (weights through the search, or a random mover), openings, Elo,
 * and PDN: what `damas match` and self-play training share. */
#ifndef DAMAS_ENGINE_MATCH_H
#define DAMAS_ENGINE_MATCH_H

#include <stdio.h>

#include "hub.h"
#include "search.h"

/* MATCH_OPENINGS_MAX: the most built-in openings a match draws from; MATCH_LEVEL_DEPTH: the
 * depth of the search that finds them level (match_openings_for). */
enum { MATCH_MAX_PLIES = 400, MATCH_NO_SCORE = -32768, MATCH_OPENINGS_MAX = 4096, MATCH_LEVEL_DEPTH = 6 };

typedef struct {
    const char *name;        /* for PDN and reports */
    const Weights *w;        /* damas with these weights; NULL for the random mover or a Hub engine */
    const char *hub;         /* a Hub engine's command line (engine/hub.h), or NULL */
    const char *hub_db;      /* the database directory for a Hub engine that takes one, or NULL */
    int contempt;            /* damas's: search_set_contempt */
    DbProbe *db;             /* the tables damas searches with, if not the match's (which also end games) */
} Player;

/* What plays one colour of a game: a damas search, a Hub engine, or neither (random mover). */
typedef struct {
    Search *search;
    HubEngine *hub;
} Seat;

typedef enum { RESULT_WHITE = 1, RESULT_DRAW = 0, RESULT_BLACK = -1 } GameResult;

typedef struct {
    Position start;
    int nmoves;
    Move moves[MATCH_MAX_PLIES];
    int16_t scores[MATCH_MAX_PLIES];   /* the mover's search score before each move; MATCH_NO_SCORE if none */
    GameResult result;
    const char *reason;      /* "no move", the draw rule's ("40 moves", ...), "repetition", "move limit",
                              * "database" */
} Game;

/* Plays one game from start: `players[c]` plays colour c from `seats[c]` (its Search, cleared
 * before the game, or its Hub engine, told a new game starts); each move is limited by
 * `limits` (a Hub engine gets limits->seconds); the random mover draws from `seed`. Ends on no
 * move (loss), the variant's draw rule, MATCH_MAX_PLIES (a draw), or, with
 * `adjudicate`, as soon as the database covers a position without a capture to make (its value
 * decides). Deterministic for node or depth limits without Hub engines. Returns DAMAS_OK, or
 * the error of a Hub engine that failed (with a message; *out then holds the game so far). */
int match_game(const Variant *v, const Position *start, const Player players[2], const Seat seats[2],
               const SearchLimits *limits, uint64_t seed, DbProbe *adjudicate, Game *out, char *err, size_t errlen);

typedef struct {
    int games, wins, draws, losses;   /* of player A */
    double elo, low, high;            /* A - B, and the 95% interval */
} MatchResult;

/* Plays `games` (even) games between A = players[0] and B = players[1] on `threads` threads:
 * game 2k starts from openings[k % nopen] with A to move first, game 2k + 1 from the same
 * opening with B. Games are adjudicated with `db` (may be NULL), and searches get it unless
 * their player has its own. Each thread starts its own process of a Hub engine. Fills *r, and
 * out[0..games) if out is not NULL. `progress` (may be NULL) is called after each game with
 * A's results so far (the Elo and its interval from the pairs complete). Returns DAMAS_OK, or
 * an error with a message: memory ran out, or a Hub engine could not be started or failed in a
 * game (the match stops there: a result with forfeits in it would not measure the engines). */
int match_run(const Variant *v, const Player players[2], const Position *openings, int nopen, int games,
              const SearchLimits *limits, int threads, uint64_t seed, DbProbe *db, Game *out, MatchResult *r,
              void (*progress)(void *ctx, const MatchResult *so_far), void *ctx, char *err, size_t errlen);

/* The colour A plays in game g of match_run. */
int match_a_colour(const Position *openings, int nopen, int g);

/* Every distinct position `plies` plies from v's start (at most max), in move-generation
 * order: the built-in openings. Returns the count. */
int match_openings(const Variant *v, int plies, Position *out, int max);

/* Built-in openings for a match of `pairs` game pairs: the level positions (a search of
 * MATCH_LEVEL_DEPTH plies on material alone finds neither side a man ahead) of the fewest plies
 * (2 to 8) that give at least `pairs` distinct ones, spread evenly over them when there are
 * more, so that no pair repeats another (node- and depth-limited games are deterministic, and a
 * repeated pair would count the same games twice). Returns the count (<= pairs and <= max; 0
 * if memory ran out). */
int match_openings_for(const Variant *v, int pairs, Position *out, int max);

/* The Elo difference for scores of paired games (pair_scores[k] in 0..1: the mean of the two
 * games of pair k) and its 95% interval. */
void match_elo(const double *pair_scores, int n, double *elo, double *low, double *high);

/* Whether r's Elo is finite: neither side scored every point. */
bool match_elo_estimable(const MatchResult *r);

/* r's Elo as text: "+12.3 (95% interval +1.0 to +23.6)", or "not estimable (A won every
 * game)" when one side scored every point (the estimate is then unbounded), or without an
 * interval after a single pair of games. */
void match_elo_text(const MatchResult *r, char *buf, size_t len);

/* Writes game g as PDN in v's notation: the tags Event, Site, Date (today, UTC), Round, White,
 * Black, Result (from White's side: 1-0, 0-1, 1/2-1/2 on 8x8; 2-0, 0-2, 1-1 on 10x10),
 * GameType, FEN when not the start position, Termination; "1..." when the second player
 * moves first. */
void match_write_pdn(FILE *out, const Variant *v, const Game *g, const char *event, const char *white,
                     const char *black, int round);

#endif
