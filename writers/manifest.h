/*
 * manifest.json: writer and parser (docs/formats.md).  The parser reads any
 * manifest with format_version <= CP_MANIFEST_FORMAT_VERSION and refuses newer
 * ones saying which version it understands.
 */
#ifndef COLLPROF_MANIFEST_H
#define COLLPROF_MANIFEST_H

#include "collprof/profile.h"
#include "textio.h"

int cp_manifest_write(cp_out *out, const cp_manifest *m, cp_error *err);
int cp_manifest_write_file(const char *path, bool gzip, const cp_manifest *m, cp_error *err);
int cp_manifest_parse(cp_in *in, cp_manifest *m, cp_error *err);
int cp_manifest_parse_file(const char *path, cp_manifest *m, cp_error *err);

#endif
