/* The FEN parser of every variant: no crash on any input; a parsed position printed in every
 * notation parses back to itself; every legal move printed parses back to itself.
 * Input: a variant byte, then the FEN text. */
#include "fuzz.h"

#include "../../core/movegen.h"
#include "../../core/notation.h"
#include "../../core/position.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    Variant v = fuzz_variant(data[0]);
    char *text = fuzz_text(data + 1, size - 1);
    Position pos;
    char err[256];
    if (notation_fen_parse(&v, text, &pos, err, sizeof err) == DAMAS_OK) {
        for (int style = NOTATION_NATIVE; style <= NOTATION_ALGEBRAIC; style++) {
            char fen[NOTATION_FEN_MAX];
            Position again;
            notation_fen_write(&v, &pos, (NotationStyle)style, fen);
            FUZZ_CHECK(notation_fen_parse(&v, fen, &again, err, sizeof err) == DAMAS_OK, "%s: %s", fen, err);
            FUZZ_CHECK(pos_equal(&pos, &again) && pos.hash == again.hash, "'%s' printed as '%s'", text, fen);
        }
        MoveList list;
        movegen_moves(&pos, &v, &list);
        for (int i = 0; i < list.count; i++) {
            char move[NOTATION_MOVE_MAX];
            Move m;
            notation_move_write(&v, &pos, &list.moves[i], NOTATION_NATIVE, move);
            FUZZ_CHECK(notation_move_parse(&v, &pos, move, &m, err, sizeof err) == DAMAS_OK, "%s in %s: %s", move,
                       text, err);
            FUZZ_CHECK(m.from == list.moves[i].from && m.to == list.moves[i].to &&
                           m.captured == list.moves[i].captured && m.flags == list.moves[i].flags,
                       "%s in %s parses to another move", move, text);
        }
    }
    free(text);
    return 0;
}
