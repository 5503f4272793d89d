/* Reading PDN (Portable Draughts Notation) game collections: tags, a FEN tag for games that
 * do not start at the start position, move text in the variant's own notation (numeric or
 * algebraic, "-", "x" or ":", with or without landing squares), move numbers ("12.",
 * "12..."), comments ({...} and ; to the end of the line), variations ((...), nested),
 * annotations ($12, !, ?) and the result (1-0 0-1 1/2-1/2 on 8x8, 2-0 0-2 1-1 on 10x10, or *).
 * match_write_pdn (match.h) writes what this reads. */
#ifndef DAMAS_ENGINE_PDN_H
#define DAMAS_ENGINE_PDN_H

#include <stdio.h>

#include "match.h"

/* Reads every game of `in` (named `name` in messages) for variant v and calls fn with each,
 * in order; fn returns false to stop early. A game whose GameType tag names another variant,
 * whose FEN does not parse, or with a move that is not legal is an error naming the game and
 * its line. Returns the number of games read (>= 0), or -1 with a message in err. A game's
 * result is the Result tag's, else the result token's (RESULT_DRAW for "*" or none). */
int pdn_read(const Variant *v, FILE *in, const char *name, bool (*fn)(void *ctx, const Game *g), void *ctx,
             char *err, size_t errlen);

#endif
