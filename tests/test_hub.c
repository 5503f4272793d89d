/* The Hub protocol's text: positions and moves written and read back in every variant. */
#include <criterion/criterion.h>
#include <string.h>

#include "../engine/hub.h"
#include "helpers.h"

Test(hub, every_position_and_legal_move_reads_back_as_written)
{
    for (int id = 0; id < VARIANT_COUNT; id++) {
        const Variant *v = variant_get((VariantId)id);
        Position pos[40];
        int n = test_random_positions(v, 5 + (uint64_t)id, 40, 80, pos);
        for (int i = 0; i < n; i++) {
            char text[HUB_POSITION_MAX];
            hub_position_write(v, &pos[i], text);
            Position back;
            cr_assert(hub_position_parse(v, text, &back), "%s: %s", v->name, text);
            cr_assert(pos_equal(&back, &pos[i]), "%s: %s", v->name, text);
            MoveList list;
            movegen_moves(&pos[i], v, &list);
            for (int k = 0; k < list.count; k++) {
                char m[HUB_MOVE_MAX];
                hub_move_write(v, &list.moves[k], m, sizeof m);
                Move parsed;
                cr_assert(hub_move_parse(v, &pos[i], m, &parsed), "%s: %s in %s", v->name, m, text);
                cr_assert(parsed.from == list.moves[k].from && parsed.to == list.moves[k].to &&
                              parsed.captured == list.moves[k].captured,
                          "%s: %s", v->name, m);
            }
        }
    }
}

Test(hub, malformed_positions_and_moves_are_refused)
{
    Variant v = test_variant("russian", false);
    Position pos, start;
    pos_start(&start, &v);
    const char *positions[] = {"", "W", "Xbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww", "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwww",
                               "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwwe", "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwx"};
    for (size_t k = 0; k < sizeof positions / sizeof *positions; k++)
        cr_assert(!hub_position_parse(&v, positions[k], &pos), "'%s'", positions[k]);
    const char *moves[] = {"", "22", "22-", "-18", "22-18x", "22-15", "99-18", "22_18", "22-18-14", "abc"};
    Move m;
    for (size_t k = 0; k < sizeof moves / sizeof *moves; k++)
        cr_assert(!hub_move_parse(&v, &start, moves[k], &m), "'%s'", moves[k]);
    cr_assert(hub_move_parse(&v, &start, "22-18", &m));
}
