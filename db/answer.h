/* A position's whole answer from a database — value, every move's value, the best line — as
 * text for people or as one JSON object, the same for `damas probe`, `damas serve` and the
 * library (api/damas.h), so that all three always agree.
 *
 * JSON: {"variant", "fen" (canonical), "wdl", "dtw" (null for a draw), "bestmove" (null when
 * the side to move has no move), "moves": [{"move", "from", "to", "capture", "wdl", "dtw",
 * "fen" (the position after it)}] best first, "line": [moves]}, or {"fen", "error"}. Squares and
 * moves are in the variant's own notation. */
#ifndef DAMAS_DB_ANSWER_H
#define DAMAS_DB_ANSWER_H

#include <stdio.h>

#include "probe.h"

typedef enum {
    ANSWER_OK,
    ANSWER_BAD_FEN,    /* the FEN does not parse, or is not a position of the variant or of a game */
    ANSWER_OUTSIDE,    /* a legal position the database does not cover */
    ANSWER_FAILED,     /* a damaged or unreadable file, out of memory */
} AnswerStatus;

/* The answer a probe error code (DamasStatus) stands for: DAMAS_ERR_RANGE is outside the
 * database, DAMAS_ERR_ILLEGAL a position that cannot arise, anything else a failure. */
AnswerStatus answer_status(int rc);

/* The answer for fen as a JSON object without a final newline, in a string the caller frees;
 * the outcome in *status (an error answer is still JSON). NULL if memory runs out. */
char *answer_json(DbProbe *p, const char *fen, AnswerStatus *status);

/* The answer for fen as lines of text ("FEN\n  value: ...\n  moves: ...\n  line: ...\n"),
 * or for an error "FEN: message" without a newline; freed by the caller. NULL if memory runs
 * out. */
char *answer_text(DbProbe *p, const char *fen, AnswerStatus *status);

/* s as a JSON string, quoted and escaped, on out. */
void answer_json_string(FILE *out, const char *s);

#endif
