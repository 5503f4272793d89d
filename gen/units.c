#include "gen.h"

/* The canonical units of `materials`: one entry per unit, in the given (dependency) order. */
static int units_of(const Material *materials, int n, Material *units)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = material_equal(units[j], materials[i]) || material_equal(units[j], material_swap(materials[i]));
        if (!seen)
            units[k++] = materials[i];
    }
    return k;
}

int gen_units(int pieces, int board_size, Material *units)
{
    Material materials[DB_MAX_MATERIALS];
    return units_of(materials, material_all(pieces, board_size, materials), units);
}

/* Whether a move in slice s (us to move) can lead to material `next` (seen from the mover's
 * opponent, who moves next): our men stay or one promotes, their pieces stay or are taken. */
static bool slice_leads_to(Material s, Material next)
{
    Material ours = {next.tm, next.tk, 0, 0}, theirs = {next.um, next.uk, 0, 0};
    bool promoted = ours.um == s.um - 1 && ours.uk == s.uk + 1;
    bool kept = ours.um == s.um && ours.uk == s.uk;
    return (kept || promoted) && theirs.um <= s.tm && theirs.uk <= s.tk;
}

bool gen_unit_needs(Material a, Material b)
{
    Material as[2] = {a, material_swap(a)}, bs[2] = {b, material_swap(b)};
    if (material_equal(a, b) || material_equal(a, bs[1]))
        return false;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (slice_leads_to(as[i], bs[j]))
                return true;
    return false;
}

uint64_t gen_unit_size(Material m, int board)
{
    Slice a, b;
    slice_init(&a, m, board);
    slice_init(&b, material_swap(m), board);
    return a.size + (material_equal(m, material_swap(m)) ? 0 : b.size);
}
