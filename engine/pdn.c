#include "pdn.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/notation.h"
#include "../core/position.h"

typedef struct {
    const Variant *v;
    const char *name;
    const char *text;        /* the whole input */
    size_t at, length;
    int line;
    Game *game;              /* the game being read */
    Position pos;            /* after its moves so far */
    bool open;               /* a tag or a move of it has been read */
    int game_line, count;
    int tag_result;          /* from the Result tag; 2 if none */
    char *err;
    size_t errlen;
} Reader;

static void game_reset(Reader *r)
{
    pos_start(&r->game->start, r->v);
    r->pos = r->game->start;
    r->game->nmoves = 0;
    r->game->result = RESULT_DRAW;
    r->game->reason = "pdn";
    for (int k = 0; k < MATCH_MAX_PLIES; k++)
        r->game->scores[k] = MATCH_NO_SCORE;
    r->open = false;
    r->tag_result = 2;
}

/* The result a token or tag value names, from White's side; 2 if it names none. */
static int result_of(const char *s)
{
    if (!strcmp(s, "1-0") || !strcmp(s, "2-0"))
        return RESULT_WHITE;
    if (!strcmp(s, "0-1") || !strcmp(s, "0-2"))
        return RESULT_BLACK;
    if (!strcmp(s, "1/2-1/2") || !strcmp(s, "1-1") || !strcmp(s, "*"))
        return RESULT_DRAW;
    return 2;
}

static int fail(Reader *r, const char *what, const char *detail)
{
    snprintf(r->err, r->errlen, "%s line %d (game %d): %s%s%s", r->name, r->line, r->count + 1, what,
             detail ? ": " : "", detail ? detail : "");
    return -1;
}

static void skip_to(Reader *r, char close)
{
    while (r->at < r->length && r->text[r->at] != close) {
        r->line += r->text[r->at] == '\n';
        r->at++;
    }
    r->at += r->at < r->length;
}

/* A variation "( ... )", nested, with comments inside. */
static void skip_variation(Reader *r)
{
    int depth = 0;
    while (r->at < r->length) {
        char c = r->text[r->at++];
        if (c == '\n')
            r->line++;
        else if (c == '{')
            skip_to(r, '}');
        else if (c == ';')
            skip_to(r, '\n'), r->line++;
        else if (c == '(')
            depth++;
        else if (c == ')' && --depth == 0)
            return;
    }
}

/* Ends the game being read: hands it to fn. Returns 1 to go on, 0 to stop. */
static int game_done(Reader *r, int token_result, bool (*fn)(void *ctx, const Game *g), void *ctx)
{
    if (!r->open)
        return 1;
    int result = r->tag_result != 2 ? r->tag_result : token_result != 2 ? token_result : RESULT_DRAW;
    r->game->result = (GameResult)result;
    r->count++;
    bool go_on = fn(ctx, r->game);
    game_reset(r);
    return go_on ? 1 : 0;
}

static int read_tag(Reader *r)
{
    char tag[32] = "", value[NOTATION_FEN_MAX] = "";
    size_t n = 0;
    r->at++;   /* '[' */
    while (r->at < r->length && isspace((unsigned char)r->text[r->at]))
        r->at++;
    while (r->at < r->length && isalnum((unsigned char)r->text[r->at]) && n + 1 < sizeof tag)
        tag[n++] = r->text[r->at++];
    tag[n] = '\0';
    while (r->at < r->length && r->text[r->at] != '"' && r->text[r->at] != ']' && r->text[r->at] != '\n')
        r->at++;
    if (r->at < r->length && r->text[r->at] == '"') {
        r->at++;
        n = 0;
        while (r->at < r->length && r->text[r->at] != '"' && r->text[r->at] != '\n') {
            if (r->text[r->at] == '\\' && r->at + 1 < r->length)
                r->at++;
            if (n + 1 >= sizeof value)
                return fail(r, "a tag value longer than 511 characters", tag);
            value[n++] = r->text[r->at++];
        }
        value[n] = '\0';
    }
    skip_to(r, ']');
    r->open = true;
    if (!strcmp(tag, "FEN")) {
        char err[256];
        if (notation_fen_parse(r->v, value, &r->game->start, err, sizeof err) != DAMAS_OK)
            return fail(r, "bad FEN tag", err);
        r->pos = r->game->start;
    } else if (!strcmp(tag, "GameType")) {
        int type = atoi(value);
        if (type != r->v->pdn_gametype) {
            char detail[96];
            snprintf(detail, sizeof detail, "GameType %d, not %s's %d", type, r->v->name, r->v->pdn_gametype);
            return fail(r, "a game of another variant", detail);
        }
    } else if (!strcmp(tag, "Result")) {
        r->tag_result = result_of(value);
    }
    return 0;
}

static int read_move(Reader *r, char *token)
{
    /* "12.", "12..." or "..." before a move, or alone. */
    char *p = token;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        while (*p == '.')
            p++;
        token = p;
    }
    size_t len = strlen(token);
    while (len > 0 && (token[len - 1] == '!' || token[len - 1] == '?' || token[len - 1] == '+'))
        token[--len] = '\0';
    if (!*token)
        return 0;
    if (r->game->nmoves == MATCH_MAX_PLIES)
        return fail(r, "a game longer than the 400 plies damas keeps", NULL);
    Move m;
    char err[256], what[NOTATION_MOVE_MAX + 32];
    if (notation_move_parse(r->v, &r->pos, token, &m, err, sizeof err) != DAMAS_OK) {
        snprintf(what, sizeof what, "move %d '%.160s'", r->game->nmoves + 1, token);
        return fail(r, what, err);
    }
    r->game->moves[r->game->nmoves++] = m;
    Undo u;
    pos_make(&r->pos, &m, &u);
    r->open = true;
    return 0;
}

static int read_all(Reader *r, bool (*fn)(void *ctx, const Game *g), void *ctx)
{
    while (r->at < r->length) {
        char c = r->text[r->at];
        if (c == '\n') {
            r->line++;
            r->at++;
        } else if (isspace((unsigned char)c)) {
            r->at++;
        } else if (c == '[') {
            /* A tag after moves starts the next game (its result token was left out). */
            if (r->open && r->game->nmoves > 0 && game_done(r, 2, fn, ctx) == 0)
                return 0;
            if (read_tag(r) < 0)
                return -1;
        } else if (c == '{') {
            skip_to(r, '}');
        } else if (c == ';') {
            skip_to(r, '\n');
            r->line++;
        } else if (c == '(') {
            skip_variation(r);
        } else if (c == '$') {
            r->at++;
            while (r->at < r->length && isdigit((unsigned char)r->text[r->at]))
                r->at++;
        } else {
            char token[NOTATION_MOVE_MAX + 32];
            size_t n = 0;
            while (r->at < r->length && !isspace((unsigned char)r->text[r->at]) && !strchr("{}();[]$", r->text[r->at])) {
                if (n + 1 < sizeof token)
                    token[n++] = r->text[r->at];
                r->at++;
            }
            token[n] = '\0';
            if (n == 0) {   /* a stray closing bracket */
                r->at++;
                continue;
            }
            int result = result_of(token);
            if (result != 2) {
                r->open = true;
                if (game_done(r, result, fn, ctx) == 0)
                    return 0;
            } else if (read_move(r, token) < 0) {
                return -1;
            }
        }
    }
    return game_done(r, 2, fn, ctx) < 0 ? -1 : 0;
}

int pdn_read(const Variant *v, FILE *in, const char *name, bool (*fn)(void *ctx, const Game *g), void *ctx,
             char *err, size_t errlen)
{
    char *text = NULL;
    size_t length = 0, cap = 0, got;
    do {
        if (length + 65536 > cap) {
            char *more = realloc(text, cap = 2 * cap + 65536);
            if (!more) {
                free(text);
                snprintf(err, errlen, "%s: out of memory", name);
                return -1;
            }
            text = more;
        }
        got = fread(text + length, 1, cap - length, in);
        length += got;
    } while (got > 0);
    if (ferror(in)) {
        free(text);
        snprintf(err, errlen, "cannot read %s", name);
        return -1;
    }
    if (memchr(text, '\0', length)) {
        free(text);
        snprintf(err, errlen, "%s holds a NUL byte: not a PDN text file", name);
        return -1;
    }
    Game *game = malloc(sizeof *game);
    if (!game) {
        free(text);
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    Reader r = {.v = v, .name = name, .text = text, .length = length, .line = 1, .game = game, .err = err,
                .errlen = errlen};
    game_reset(&r);
    int rc = read_all(&r, fn, ctx);
    free(game);
    free(text);
    return rc < 0 ? -1 : r.count;
}
