#!/usr/bin/env python3
"""Turns the help texts of `collprof help <command>` (one <command>.txt each
in this folder) into C: help_texts.c defines cli_help_<command>[] for every
file, help_texts.h declares them.  The texts stay prose that one edits as
prose; the command and its manual page (man/gen_man.c) read the same arrays.

usage: embed_help.py FILE.txt... OUT.c OUT.h
"""
import os
import sys


def c_literal_lines(text):
    """The text as adjacent C string literals, one per line of the text."""
    out = []
    for line in text.splitlines(keepends=True):
        esc = line.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
        out.append('    "%s"' % esc)
    return '\n'.join(out) if out else '    ""'


def main(argv):
    if len(argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    inputs, out_c, out_h = argv[1:-2], argv[-2], argv[-1]
    names = []
    body = []
    for path in inputs:
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding='utf-8') as f:
            text = f.read()
        if '\t' in text:
            sys.stderr.write('%s: a tab; the help is laid out with spaces\n' % path)
            return 1
        names.append(name)
        body.append('const char cli_help_%s[] =\n%s;\n' % (name, c_literal_lines(text)))
    head = '/* Made by tools/help/embed_help.py from the .txt files in tools/help: edit those. */\n'
    with open(out_c, 'w', encoding='utf-8') as f:
        f.write(head + '#include "help_texts.h"\n\n' + '\n'.join(body))
    with open(out_h, 'w', encoding='utf-8') as f:
        f.write(head + '#ifndef COLLPROF_HELP_TEXTS_H\n#define COLLPROF_HELP_TEXTS_H\n\n')
        for name in names:
            f.write('extern const char cli_help_%s[];\n' % name)
        f.write('\n#endif\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
