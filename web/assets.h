/* The explorer's files, built into the binary from web/page/ (scripts/embed-assets.sh). */
#ifndef DAMAS_WEB_ASSETS_H
#define DAMAS_WEB_ASSETS_H

#include <stddef.h>

typedef struct {
    const char *path;      /* "/explorer.js"; "/" for index.html */
    const char *type;      /* Content-Type */
    const unsigned char *data;
    size_t length;
} WebAsset;

extern const WebAsset web_assets[];
extern const int web_asset_count;

#endif
