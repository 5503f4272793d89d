/* Move text in positions of every variant: no crash on any input; a move that parses prints
 * as a text that parses to the same move. Input: a variant byte, a position byte (one of a few
 * positions rich in captures, or the start), then the move text. */
#include "fuzz.h"

#include "../../core/movegen.h"
#include "../../core/notation.h"
#include "../../core/position.h"

static const char *const positions8[] = {
    "W:W21-32:B1-12",            /* the start (numbered as the variant numbers it) */
    "W:WK29,22,18:B13,14,10,6",  /* a king and men with captures around */
    "B:W23,24,27,K30:BK5,15,11",
    "W:WK1,K32:BK4,K29,18,14,10",
};
static const char *const positions10[] = {
    "W:W31-50:B1-20",
    "W:WK46,28,33,39:B13,18,22,23,24",
    "B:WK5,K45,30,20:BK1,34,35,40",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    Variant v = fuzz_variant(data[0]);
    bool ten = v.rules.board_size == 10;
    const char *fen = ten ? positions10[data[1] % 3] : positions8[data[1] % 4];
    Position pos;
    char err[256];
    if (notation_fen_parse(&v, fen, &pos, err, sizeof err) != DAMAS_OK)
        return 0;   /* a man on its promotion row in this variant's numbering */
    char *text = fuzz_text(data + 2, size - 2);
    Move m, again;
    if (notation_move_parse(&v, &pos, text, &m, err, sizeof err) == DAMAS_OK) {
        for (int style = NOTATION_NATIVE; style <= NOTATION_ALGEBRAIC; style++) {
            char out[NOTATION_MOVE_MAX];
            notation_move_write(&v, &pos, &m, (NotationStyle)style, out);
            FUZZ_CHECK(notation_move_parse(&v, &pos, out, &again, err, sizeof err) == DAMAS_OK, "%s: %s", out, err);
            FUZZ_CHECK(again.from == m.from && again.to == m.to && again.captured == m.captured &&
                           again.flags == m.flags,
                       "'%s' printed as '%s' names another move", text, out);
        }
    }
    free(text);
    return 0;
}
