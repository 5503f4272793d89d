/* The Hub protocol (version 2, as Scan 3 speaks it): the text of positions and moves, and a
 * client that plays through a Hub engine running as a child process, so that `damas match`
 * can measure damas against any such engine (an earlier damas, Scan, ...).
 *
 * A position is the side to move ('W'/'B') then one character per square in number order
 * ('w', 'b', 'W', 'B' for kings, 'e' empty); a move is "from-to", or "fromxto" followed by
 * "x<square>" for each captured piece, in the variant's square numbers. */
#ifndef DAMAS_ENGINE_HUB_H
#define DAMAS_ENGINE_HUB_H

#include "../core/movegen.h"

enum { HUB_POSITION_MAX = 64, HUB_MOVE_MAX = 256 };

/* The Hub text of pos (buf of HUB_POSITION_MAX bytes) and of its legal move m. */
void hub_position_write(const Variant *v, const Position *pos, char *buf);
void hub_move_write(const Variant *v, const Move *m, char *buf, size_t len);

/* The position written `text` (false if it is not one of v's board). */
bool hub_position_parse(const Variant *v, const char *text, Position *out);

/* The legal move of pos written `text`, the captured squares in any order; false if none. */
bool hub_move_parse(const Variant *v, const Position *pos, const char *text, Move *out);

enum { HUB_MAX_ARGS = 16 };

/* A Hub line split into its command word and its arguments (name, name=value or
 * name="quoted value"); at most HUB_MAX_ARGS arguments, the rest ignored. */
typedef struct {
    char *name[HUB_MAX_ARGS], *value[HUB_MAX_ARGS];
    int n;
} HubArgs;

/* Splits `line` in place into *a; returns the command word, or NULL for a blank line. The
 * names and values point into line. */
char *hub_line_parse(char *line, HubArgs *a);

/* The value of argument `name` ("" for a bare name), or NULL if the line has none. */
const char *hub_arg(const HubArgs *a, const char *name);

typedef struct HubEngine HubEngine;

/* Starts `command` (run by /bin/sh) as a Hub engine for v: the `hub` handshake, the variant
 * parameter (under the name the engine lists: "normal" for international if that is what it
 * knows), v's draw rules if it lists a `rules` parameter (as damas does), the database
 * directory `db` (NULL: none) if it lists a `db` parameter (as damas does), `init` and its
 * `ready`. NULL with a message if the engine cannot be started, dies,
 * says `error`, or does not answer within a few seconds. Ignores SIGPIPE in this process, so
 * that an engine that dies is an error and not the end of the caller. */
HubEngine *hub_engine_start(const char *command, const Variant *v, const char *db, char *err, size_t errlen);

/* Tells the engine a new game starts. */
int hub_engine_new_game(HubEngine *e, char *err, size_t errlen);

/* The engine's move in the position after `moves[0..nmoves)` from `start` (the whole game,
 * so that it sees repetitions), thinking `seconds`. DAMAS_OK with the legal move in *out; an
 * error with a message if the engine dies, answers an illegal or no move, or has not answered
 * `seconds` + a few seconds later (it is then told to stop). */
int hub_engine_play(HubEngine *e, const Position *start, const Move *moves, int nmoves, double seconds, Move *out,
                    char *err, size_t errlen);

/* Sends `quit`, waits a moment for the engine to end (then kills it), frees e. NULL is a no-op. */
void hub_engine_close(HubEngine *e);

#endif
