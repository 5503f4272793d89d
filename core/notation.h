/* Positions and moves to and from text: PDN 3.0 FEN, numeric squares in each variant's own
 * PDN numbering, algebraic squares (a1..h8, a1..j10), and move text (-, x, :, full paths).
 * Every parse function returns DAMAS_OK or a DamasStatus error, with a message naming the
 * problem in err (when err is not NULL). All functions are thread-safe. */
#ifndef DAMAS_NOTATION_H
#define DAMAS_NOTATION_H

#include "types.h"

typedef enum {
    NOTATION_NATIVE,     /* the variant's own convention */
    NOTATION_NUMERIC,
    NOTATION_ALGEBRAIC,
} NotationStyle;

enum { NOTATION_SQUARE_MAX = 8, NOTATION_FEN_MAX = 512, NOTATION_MOVE_MAX = 160 };

/* One square label (numeric, or algebraic such as "c3") at text; the square's bit goes to
 * *sq and the end of the label to *end. */
int notation_square_parse(const Variant *v, const char *text, int *sq, const char **end, char *err,
                          size_t errlen);

/* The label of bit sq in `style`; buf of NOTATION_SQUARE_MAX. */
void notation_square_write(const Variant *v, int sq, NotationStyle style, char *buf);

/* A PDN FEN ("W:W21-32:B1-12", "B:WK10,K14:B5", "W:Wa1,c1:Bh8", quotes and a final '.'
 * allowed) into *pos. Rejects bad or repeated squares, a man on its own promotion row, and
 * more pieces than a side starts with. *pos is untouched on error. */
int notation_fen_parse(const Variant *v, const char *text, Position *pos, char *err, size_t errlen);

/* pos as a FEN in `style` (ranges for runs of numeric squares); buf of NOTATION_FEN_MAX. */
void notation_fen_write(const Variant *v, const Position *pos, NotationStyle style, char *buf);

/* The legal move m of pos, in `style`: from-to for a plain move, from x to (":" in Russian)
 * for a capture, with every landing square when another legal move shares from and to.
 * buf of NOTATION_MOVE_MAX. */
void notation_move_write(const Variant *v, const Position *pos, const Move *m, NotationStyle style, char *buf);

/* The legal move of pos that `text` names ("11-15", "c3:e5", "27x18x11", "c3xg7"): squares
 * separated by '-', 'x' or ':', optionally with landing squares in between. Fails with
 * DAMAS_ERR_ILLEGAL if no legal move matches, DAMAS_ERR_AMBIGUOUS if several do. */
int notation_move_parse(const Variant *v, const Position *pos, const char *text, Move *m, char *err,
                        size_t errlen);

#endif
