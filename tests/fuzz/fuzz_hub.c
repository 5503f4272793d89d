/* Hub protocol lines: the line splitter never reads or writes outside the line and gives
 * arguments inside it; positions and moves in Hub text parse back to themselves. Input: a
 * variant byte, then the line. */
#include "fuzz.h"

#include "../../core/movegen.h"
#include "../../core/position.h"
#include "../../engine/hub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    Variant v = fuzz_variant(data[0]);
    char *line = fuzz_text(data + 1, size - 1);
    size_t len = strlen(line);
    char *copy = fuzz_text((const uint8_t *)line, len);
    HubArgs a;
    char *cmd = hub_line_parse(copy, &a);
    FUZZ_CHECK(!cmd || (cmd >= copy && cmd <= copy + len), "command outside the line");
    FUZZ_CHECK(a.n >= 0 && a.n <= HUB_MAX_ARGS, "%d arguments", a.n);
    for (int i = 0; i < a.n; i++) {
        FUZZ_CHECK(a.name[i] >= copy && a.name[i] <= copy + len, "name outside the line");
        FUZZ_CHECK(hub_arg(&a, a.name[i]) != NULL, "argument %s not found", a.name[i]);
    }
    /* The same bytes as a Hub position, and (if it is one) each legal move as Hub text. */
    Position pos, again;
    if (hub_position_parse(&v, line, &pos)) {
        char text[HUB_POSITION_MAX], move[HUB_MOVE_MAX];
        hub_position_write(&v, &pos, text);
        FUZZ_CHECK(hub_position_parse(&v, text, &again) && pos_equal(&pos, &again), "%s -> %s", line, text);
        MoveList list;
        movegen_moves(&pos, &v, &list);
        for (int i = 0; i < list.count; i++) {
            Move m;
            hub_move_write(&v, &list.moves[i], move, sizeof move);
            FUZZ_CHECK(hub_move_parse(&v, &pos, move, &m) && m.from == list.moves[i].from &&
                           m.to == list.moves[i].to && m.captured == list.moves[i].captured,
                       "move %s of %s", move, text);
        }
    }
    free(copy);
    free(line);
    return 0;
}
