#include "notation.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "error.h"
#include "movegen.h"
#include "variant.h"

/* Italian and Spanish put a light square at a1: their board is ours mirrored left-right. */
static bool mirrored(const Variant *v)
{
    return v->numbering != NUMBERING_STANDARD;
}

/* Variant label 1..N <-> internal square 0..N-1. Each mapping is its own inverse. */
static int label_square(const Variant *v, int index)
{
    int r = index / 4, c = index % 4;
    switch (v->numbering) {
    case NUMBERING_ITALIAN:
        return r * 4 + (3 - c);
    case NUMBERING_SPANISH:
        return (7 - r) * 4 + c;
    case NUMBERING_STANDARD:
        break;
    }
    return index;
}

static int square_label(const Variant *v, int square)
{
    return label_square(v, square) + 1;
}

int notation_square_parse(const Variant *v, const char *text, int *sq, const char **end, char *err,
                          size_t errlen)
{
    const Board *b = variant_board(v);
    const char *p = text;
    if (isdigit((unsigned char)*p)) {
        long n = 0;
        while (isdigit((unsigned char)*p) && n < 1000)
            n = n * 10 + (*p++ - '0');
        if (n < 1 || n > b->squares)
            FAIL(DAMAS_ERR_RANGE, "square %.*s is outside the board (1-%d)", (int)(p - text), text, b->squares);
        *sq = b->square_bit[label_square(v, (int)n - 1)];
        *end = p;
        return DAMAS_OK;
    }
    if (*p >= 'a' && *p <= 'z') {
        int file = *p++ - 'a';
        int rank = 0;
        while (isdigit((unsigned char)*p) && rank < 100)
            rank = rank * 10 + (*p++ - '0');
        if (p == text + 1)
            FAIL(DAMAS_ERR_SYNTAX, "bad square '%.3s': expected a number or a1..%c%d", text,
                 'a' + b->size - 1, b->size);
        if (file >= b->size || rank < 1 || rank > b->size)
            FAIL(DAMAS_ERR_RANGE, "square %.*s is outside the %dx%d board", (int)(p - text), text, b->size,
                 b->size);
        int row = b->size - rank;
        int f = mirrored(v) ? b->size - 1 - file : file;
        if ((row % 2 == 0) != (f % 2 == 1))
            FAIL(DAMAS_ERR_RANGE, "square %.*s is a light square, not a playing square", (int)(p - text), text);
        *sq = b->square_bit[row * b->width + f / 2];
        *end = p;
        return DAMAS_OK;
    }
    FAIL(DAMAS_ERR_SYNTAX, "bad square '%.3s': expected a number or a1..%c%d", *p ? text : "(end)",
         'a' + b->size - 1, b->size);
}

static bool style_algebraic(const Variant *v, NotationStyle style)
{
    return style == NOTATION_ALGEBRAIC || (style == NOTATION_NATIVE && v->writes_algebraic);
}

void notation_square_write(const Variant *v, int sq, NotationStyle style, char *buf)
{
    const Board *b = variant_board(v);
    if (style_algebraic(v, style)) {
        int f = b->bit_file[sq];
        int file = mirrored(v) ? b->size - 1 - f : f;
        snprintf(buf, NOTATION_SQUARE_MAX, "%c%d", 'a' + file, b->size - b->bit_row[sq]);
    } else {
        snprintf(buf, NOTATION_SQUARE_MAX, "%d", square_label(v, b->bit_square[sq]));
    }
}

/* ---- FEN ---- */

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* Places one piece on the board being parsed, with the checks every piece needs. */
static int fen_place(const Variant *v, Position *pos, int colour, int sq, bool king, char *err, size_t errlen)
{
    const Board *b = variant_board(v);
    char label[NOTATION_SQUARE_MAX];
    notation_square_write(v, sq, NOTATION_NATIVE, label);
    if (((pos->pieces[WHITE] | pos->pieces[BLACK]) >> sq) & 1)
        FAIL(DAMAS_ERR_ILLEGAL, "square %s is given twice", label);
    int promotion_row = colour == WHITE ? 0 : b->size - 1;
    if (!king && b->bit_row[sq] == promotion_row)
        FAIL(DAMAS_ERR_ILLEGAL, "%s man on %s stands on its promotion row (it would be a king)",
             colour == WHITE ? "white" : "black", label);
    int most = (b->size / 2 - 1) * b->width; /* a side's men at the start: 12 or 20 */
    if (pos_count(pos->pieces[colour]) == most)
        FAIL(DAMAS_ERR_ILLEGAL, "%s has more than %d pieces, more than a side starts with",
             colour == WHITE ? "White" : "Black", most);
    pos_put(pos, colour, sq, king);
    return DAMAS_OK;
}

/* One colour's list after its 'W' or 'B': items "K"? square ("-" square)? separated by ','. */
static int fen_pieces(const Variant *v, const char **pp, Position *pos, int colour, char *err, size_t errlen)
{
    const char *p = skip_space(*pp);
    while (*p && *p != ':' && *p != '.' && *p != '"') {
        bool king = false;
        if (*p == 'K' || *p == 'k') {
            king = true;
            p++;
        }
        int first, last;
        const char *start = p, *end;
        int rc = notation_square_parse(v, p, &first, &end, err, errlen);
        if (rc != DAMAS_OK)
            return rc;
        p = end;
        last = first;
        if (*p == '-') {
            if (!isdigit((unsigned char)*start) || !isdigit((unsigned char)p[1]))
                FAIL(DAMAS_ERR_SYNTAX, "range '%.*s...' must join two square numbers", (int)(p - start + 1), start);
            rc = notation_square_parse(v, p + 1, &last, &end, err, errlen);
            if (rc != DAMAS_OK)
                return rc;
            p = end;
        }
        const Board *b = variant_board(v);
        int lo = square_label(v, b->bit_square[first]), hi = square_label(v, b->bit_square[last]);
        if (hi < lo)
            FAIL(DAMAS_ERR_SYNTAX, "range %d-%d runs backwards", lo, hi);
        for (int n = lo; n <= hi; n++) {
            rc = fen_place(v, pos, colour, b->square_bit[label_square(v, n - 1)], king, err, errlen);
            if (rc != DAMAS_OK)
                return rc;
        }
        p = skip_space(p);
        if (*p == ',')
            p = skip_space(p + 1);
        else if (*p && *p != ':' && *p != '.' && *p != '"')
            FAIL(DAMAS_ERR_SYNTAX, "unexpected '%c' after a square; squares are separated by ','", *p);
    }
    *pp = p;
    return DAMAS_OK;
}

static int colour_letter(char c)
{
    return c == 'W' || c == 'w' ? WHITE : c == 'B' || c == 'b' ? BLACK : -1;
}

int notation_fen_parse(const Variant *v, const char *text, Position *out, char *err, size_t errlen)
{
    const char *p = skip_space(text);
    bool quoted = *p == '"';
    if (quoted)
        p++;
    int side = colour_letter(*p);
    if (side < 0)
        FAIL(DAMAS_ERR_SYNTAX, "FEN must start with the side to move, 'W' or 'B' (got '%.10s')", p);
    Position pos;
    pos_clear(&pos, side);
    p = skip_space(p + 1);
    if (*p && *p != ':' && *p != '.' && *p != '"')
        FAIL(DAMAS_ERR_SYNTAX, "expected ':' after the side to move (got '%.10s')", p);
    bool seen[2] = {false, false};
    while (*p == ':') {
        p = skip_space(p + 1);
        int colour = colour_letter(*p);
        if (colour < 0)
            FAIL(DAMAS_ERR_SYNTAX, "expected 'W' or 'B' before a colour's squares (got '%.10s')", *p ? p : "(end)");
        if (seen[colour])
            FAIL(DAMAS_ERR_SYNTAX, "the %s pieces are listed twice", colour == WHITE ? "white" : "black");
        seen[colour] = true;
        p++;
        int rc = fen_pieces(v, &p, &pos, colour, err, errlen);
        if (rc != DAMAS_OK)
            return rc;
    }
    if (*p == '.')
        p++;
    if (quoted && *p == '"')
        p++;
    p = skip_space(p);
    if (*p)
        FAIL(DAMAS_ERR_SYNTAX, "unexpected text '%.10s' at the end of the FEN", p);
    if (!seen[WHITE] && !seen[BLACK])
        FAIL(DAMAS_ERR_SYNTAX, "FEN lists no pieces (expected e.g. W:W21-32:B1-12)");
    *out = pos;
    return DAMAS_OK;
}

static char *fen_colour(const Variant *v, const Position *pos, int colour, NotationStyle style, char *out)
{
    const Board *b = variant_board(v);
    bool numeric = !style_algebraic(v, style);
    *out++ = ':';
    *out++ = colour == WHITE ? 'W' : 'B';
    bool first = true;
    for (int n = 1; n <= b->squares; n++) {
        int sq = b->square_bit[label_square(v, n - 1)];
        if (!((pos->pieces[colour] >> sq) & 1))
            continue;
        bool king = (pos->kings >> sq) & 1;
        int run = 1; /* a run of consecutive labels, same colour and kind */
        while (numeric && n + run <= b->squares) {
            int next = b->square_bit[label_square(v, n + run - 1)];
            if (!((pos->pieces[colour] >> next) & 1) || ((pos->kings >> next) & 1) != king)
                break;
            run++;
        }
        if (!first)
            *out++ = ',';
        first = false;
        if (king)
            *out++ = 'K';
        char label[NOTATION_SQUARE_MAX];
        notation_square_write(v, sq, style, label);
        out += sprintf(out, "%s", label);
        if (run >= 3) {
            out += sprintf(out, "-%d", n + run - 1);
            n += run - 1;
        }
    }
    return out;
}

void notation_fen_write(const Variant *v, const Position *pos, NotationStyle style, char *buf)
{
    char *p = buf;
    *p++ = pos->side == WHITE ? 'W' : 'B';
    p = fen_colour(v, pos, WHITE, style, p);
    p = fen_colour(v, pos, BLACK, style, p);
    *p = '\0';
}

/* ---- moves ---- */

enum { PATH_MAX_SQUARES = 32 };

void notation_move_write(const Variant *v, const Position *pos, const Move *m, NotationStyle style, char *buf)
{
    char sep = m->captured ? (style == NOTATION_NUMERIC && v->capture_sep == ':' ? 'x' : v->capture_sep) : '-';
    int path[PATH_MAX_SQUARES] = {m->from, m->to};
    int n = 2;
    if (m->captured) {
        MoveList list;
        movegen_moves(pos, v, &list);
        for (int i = 0; i < list.count; i++) {
            const Move *o = &list.moves[i];
            if (o->from == m->from && o->to == m->to && (o->captured != m->captured || o->flags != m->flags)) {
                int k = movegen_capture_path(pos, v, m, NULL, 0, false, path, PATH_MAX_SQUARES);
                n = k ? k : 2;
                break;
            }
        }
    }
    char *p = buf;
    for (int i = 0; i < n; i++) {
        char label[NOTATION_SQUARE_MAX];
        notation_square_write(v, path[i], style, label);
        if (i)
            *p++ = sep;
        p += sprintf(p, "%s", label);
    }
}

int notation_move_parse(const Variant *v, const Position *pos, const char *text, Move *m, char *err,
                        size_t errlen)
{
    int squares[PATH_MAX_SQUARES];
    int n = 0;
    bool dash = false, cross = false;   /* the separators written: '-' a plain move, 'x' or ':' a capture */
    const char *p = skip_space(text);
    for (;;) {
        if (n == PATH_MAX_SQUARES)
            FAIL(DAMAS_ERR_SYNTAX, "move '%s' has too many squares", text);
        const char *end;
        int rc = notation_square_parse(v, p, &squares[n++], &end, err, errlen);
        if (rc != DAMAS_OK)
            return rc;
        p = end;
        if (*p != '-' && *p != 'x' && *p != 'X' && *p != ':')
            break;
        dash |= *p == '-';
        cross |= *p != '-';
        p++;
    }
    if (*skip_space(p))
        FAIL(DAMAS_ERR_SYNTAX, "unexpected '%.10s' in move '%s'", p, text);
    if (n < 2)
        FAIL(DAMAS_ERR_SYNTAX, "move '%s' needs a from and a to square (e.g. 11-15 or 11x18)", text);

    MoveList list;
    movegen_moves(pos, v, &list);
    /* The moves of the kind the separator names (when it names one), then any; among them, the
     * squares given first as the whole path (a plain move or a single capture when only two are
     * given), then as some of its landing squares in order. */
    int found = -1, matches = 0;
    for (int pass = 0; pass < 4 && matches == 0; pass++) {
        bool exact = pass % 2 == 0, any_kind = pass >= 2 || dash == cross;
        for (int i = 0; i < list.count; i++) {
            const Move *c = &list.moves[i];
            if (c->from != squares[0] || c->to != squares[n - 1] || (!any_kind && (c->captured != 0) != cross))
                continue;
            int path[PATH_MAX_SQUARES];
            if (n == 2 ? exact && pos_count(c->captured) > 1
                       : !movegen_capture_path(pos, v, c, squares + 1, n - 2, exact, path, PATH_MAX_SQUARES))
                continue;
            found = i;
            matches++;
        }
    }
    if (matches == 0)
        FAIL(DAMAS_ERR_ILLEGAL, "'%s' is not a legal move here", text);
    if (matches > 1)
        FAIL(DAMAS_ERR_AMBIGUOUS, "'%s' is ambiguous: %d legal moves match; give the landing squares", text,
             matches);
    *m = list.moves[found];
    return DAMAS_OK;
}
