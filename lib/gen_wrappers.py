#!/usr/bin/env python3
"""Generate collprof's MPI wrappers from the one table, model/wrappers.tbl.

usage: gen_wrappers.py TABLE OUT_WRAPPERS_C OUT_FORMS_H OUT_FORTRAN_C
                       [--mpi-version X.Y] [--persistent-prefix MPIX_]
                       [--fortran none|openmpi]

It writes what one MPI library gets (collprof is built for each installed);
what is the same for every library (the collectives' enumeration and names,
the list of wrapped functions) is model/gen_collectives.py's.

Every wrapper has the same body: begin the call (NULL when the profiler is
off, so the wrapper is a plain pass-through), capture the arguments, record,
and call the PMPI_ function whose result is returned unchanged.  Persistent
forms register the request so that each MPI_Start counts as one call.

What the MPI library lacks is left out here, at build time: forms and
constructors newer than --mpi-version (the library's MPI_VERSION) are not
wrapped.  Open MPI 4.1 (MPI 3.1) has the persistent collectives under its
own names, MPIX_..._init: --persistent-prefix MPIX_ wraps those instead.

OUT_FORMS_H tells the tests which forms exist (and maps the persistent
names onto the library's).  OUT_FORTRAN_C holds, with --fortran openmpi,
the Fortran entry points (mpif.h, use mpi, use mpi_f08) of every wrapped
collective: Open MPI's Fortran bindings call PMPI_ directly, so each is
converted here and sent to the C wrapper.
"""
import os
import re
import sys

# The table's grammar and the forms of a function: the model's (model/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model"))
from wrapped_table import FULL, Build, parse, variants, version  # noqa: E402

def large(params):
    """The _c variant of a parameter list: counts become MPI_Count and
    displacements MPI_Aint."""
    out = []
    for p in params.split(","):
        p = p.strip()
        m = re.match(r"(const )?int (\w+)(\[\])?$", p)
        if m and ("count" in m.group(2) or "displs" in m.group(2)):
            typ = "MPI_Aint" if "displs" in m.group(2) else "MPI_Count"
            p = f"{m.group(1) or ''}{typ} {m.group(2)}{m.group(3) or ''}"
        out.append(p)
    return ", ".join(out)


def arg_names(params):
    names = []
    for p in params.split(","):
        m = re.search(r"(\w+)(\[\])?$", p.strip())
        names.append(m.group(1))
    return ", ".join(names)


def wrapper(fn, form, is_large, coll, params, capture):
    if is_large:
        params = large(params)
    if form == "nonblocking":
        params += ", MPI_Request *request"
    elif form == "persistent":
        params += ", MPI_Info info, MPI_Request *request"
    width = "sizeof(MPI_Count)" if is_large else "sizeof(int)"
    capture = capture.replace("CP_W", width)
    args = arg_names(params)
    unused = " ".join(f"(void){a};" for a in args.split(", "))
    enum = "CP_COLL_" + coll.upper()
    # enum cp_form (writers/mpi_names.h): Cube names the region after it.
    form_code = "CP_FORM_" + form.upper() + (" + CP_FORM_LARGE" if is_large else "")
    begin = f"cp_call_begin(&call, &view, comm, {enum}, {form_code}, ra)"
    if form == "persistent":
        return f"""
CP_EXPORT int {fn}({params})
{{
    cp_call call;
    cp_comm_view view;
    void *ra = __builtin_return_address(0);
    const cp_comm_view *c = {begin};
    if (c)
        {capture};
    int rc = P{fn}({args});
    if (c)
        cp_call_register_persistent(c->comm, &call, rc, request);
    return rc;
}}
"""
    blocking = "true" if form == "blocking" else "false"
    # The MPI call and what follows it, the same for a repeated call and a
    # new one; `mpi` is the function called.
    def run(mpi, timed):
        return f"""int rc;
        if (call.timed) {{
            cp_call_sync(&call, comm, {blocking});
            rc = {mpi}({args});
            {timed};
        }} else {{
            rc = {mpi}({args});
        }}
        if (__builtin_expect(rc != MPI_SUCCESS, 0))
            cp_call_failed(c->comm, call.coll, call.idx, call.sig, rc);
        return rc;"""
    # A call described as the memo's last kept one is counted at once
    # (call_memo.h) by the wrapper's front, cp_quick_<fn>, out of line.  On
    # x86-64 the exported function is a few instructions of assembly
    # (wrapper_asm): the call's record lives in the front's frame, gone
    # before the MPI call, and the wrapper's own frame around the MPI call
    # is the memo's address (and a timed call's record and arrival), with
    # the arguments the MPI function takes on the stack: every line a frame
    # spans is written on every call, below the application's frame, a
    # trip to memory where the application evicts the caches (the front's
    # lines are below, where the MPI library's own frames are written
    # next).  The wrapper calls the MPI function the memo holds, on the
    # memo's line, not through the dynamic linker's table.  A call the gate
    # does not call quick (barrier mode, the system clock, a pause) goes to
    # cp_slow_<fn>, the same steps with the record kept; any call that is
    # not the memo's to cp_newj_<fn> and so to cp_new_<fn>, which describes
    # it again, looks its signature up and keeps it when it repeats.  Both
    # are jumped to, the application's call site their return address.
    # (The front taking the general path itself, with the call as it
    # described it, kept the arguments live across the front and made
    # every repeated call slower: docs/performance.md.)  Elsewhere the
    # exported function is cp_slow_<fn>'s body.
    slow_body = f"""
{{
    cp_call call;
    cp_comm_view view;
    void *ra = __builtin_return_address(0);
    const cp_comm_view *c = {begin};
    if (c) {{
        {capture};
        cp_memo *m = cp_memo_hit(&call, c);
        if (!m)
            return cp_new_{fn}({args}, ra);
        {run(f"((__typeof__(&P{fn}))m->mpi)", f"cp_memo_timed(m, &call, {blocking})")}
    }}
    return P{fn}({args});
}}
"""
    return f"""
static __attribute__((noinline)) int cp_new_{fn}({params}, void *ra)
{{
    cp_call call;
    cp_comm_view view;
    const cp_comm_view *c = {begin};
    if (c) {{
        {capture};
        cp_call_record(c->comm, &call);
        cp_memo_keep(&call, c->comm, (void (*)(void))P{fn});
        {run("P" + fn, f"cp_call_timed(c->comm, &call, {blocking})")}
    }}
    return P{fn}({args});
}}

#if defined(__x86_64__)
static CP_WRAPPER_PART int cp_newj_{fn}({params})
{{
    return cp_new_{fn}({args}, __builtin_return_address(0));
}}

static CP_WRAPPER_PART CP_QUIET int cp_slow_{fn}({params})
{slow_body}
static CP_WRAPPER_PART CP_QUIET cp_quick cp_quick_{fn}({params}, void *ra)
{{
    {unused} /* the front reads what the capture needs */
    cp_call call;
    cp_comm_view view;
    const cp_comm_view *c = {begin};
    if (!c)
        return (cp_quick){{CP_QUICK_OFF, NULL}};
    if (!call.quick)
        return (cp_quick){{CP_QUICK_SLOW, NULL}};
    {capture};
    return cp_memo_quick(&call, c);
}}

{wrapper_asm(fn, len(args.split(", ")), blocking == "true")}
#else
CP_EXPORT int {fn}({params})
{slow_body}#endif
"""


# The argument registers of x86-64 (System V), in order.
ARG_REGS = ["%rdi", "%rsi", "%rdx", "%rcx", "%r8", "%r9"]


def wrapper_asm(fn, nparams, blocking):
    """The exported function of a wrapper on x86-64: save the argument
    registers, ask the front (cp_quick_<fn>, the application's call site
    its last argument), take them back; then call the memo's MPI function
    with the memo's address (and a timed call's record and arrival) kept
    on the stack, the stack arguments pushed again, or jump (frame gone)
    to the MPI library, cp_slow_<fn> or cp_newj_<fn>.  Each path ends at
    the entry's stack level, so that the unwinding table stays simple.
    In the quiet section (signals.h), beside its front: a signal there waits
    a moment, which nothing on this path needs, but in .text, far from the
    front, MPI_Neighbor_alltoallv counted only measured 26 ns against 23
    (docs/performance.md)."""
    k = max(0, nparams - 6)  # the arguments on the caller's stack
    out = []
    depth = 0  # bytes pushed since the entry (the return address at depth)

    def op(line, delta=0):
        nonlocal depth
        if line.startswith("addq $0,"):
            return
        out.append(line)
        if delta:
            depth += delta
            out.append(f".cfi_adjust_cfa_offset {delta}")

    # At a call the stack is 16-byte aligned: the entry's is 8 off, so an
    # odd number of words is pushed in all.
    def push_stack_args():
        for i in reversed(range(k)):
            op(f"pushq {depth + 8 + 8 * i}(%rsp)", 8)

    # The memo's MPI function (its address in %r11), `kept` words of ours
    # on the stack (an odd number), the stack arguments pushed again.
    def call_mpi(kept):
        if k % 2:
            op("subq $8, %rsp", 8)
        push_stack_args()
        assert depth % 16 == 8, fn
        op("call *CP_MEMO_MPI_AT(%r11)")
        op(f"addq ${depth - 8 * kept}, %rsp", -(depth - 8 * kept))

    for r in ARG_REGS:
        op(f"pushq {r}", 8)
    words = 0 if nparams < 6 else k + 1
    if (words % 2) == 0:
        op("subq $8, %rsp", 8)
    if nparams < 6:
        op(f"movq {depth}(%rsp), {ARG_REGS[nparams]}")
    else:
        op(f"pushq {depth}(%rsp)", 8)  # ra, after the stack arguments
        push_stack_args()
    assert depth % 16 == 8, fn
    op(f"call cp_quick_{fn}")
    op(f"addq ${depth - 48}, %rsp", -(depth - 48))
    op("movq %rax, %r11")
    op("movq %rdx, %r10")
    for r in reversed(ARG_REGS):
        op(f"popq {r}", -8)
    op("cmpq $63, %r11")
    op("jbe 3f")
    op("testb $1, %r11b")
    op("jnz 2f")
    # Counted only: the memo kept across the MPI call.
    op("pushq %r11", 8)
    call_mpi(1)
    op("popq %rdi", -8)
    op("testl %eax, %eax")
    op("jnz 1f")
    op("ret")
    op("1: movl %eax, %esi")
    op("jmp cp_memo_failed")
    # Timed: the memo, the record, the arrival.
    op("2: andq $-2, %r11")
    op("pushq %r11", 8)
    op("pushq %r10", 8)
    op("movq %rdx, %r10")
    op("rdtsc")
    op("shlq $32, %rdx")
    op("orq %rdx, %rax")
    op("movq %r10, %rdx")
    op("pushq %rax", 8)
    call_mpi(3)
    op("popq %rdx", -8)
    op("popq %rsi", -8)
    op("popq %rdi", -8)
    op("movl %eax, %ecx")
    op(f"jmp cp_memo_after_{'blocking' if blocking else 'nonblocking'}")
    # Not the memo's: the frame is gone, the arguments where they came.
    op("3: testq %r11, %r11")
    op(f"jz P{fn}@PLT")
    op("cmpq $1, %r11")
    op(f"je cp_slow_{fn}")
    op(f"jmp cp_newj_{fn}")
    assert depth == 0, fn
    body = "".join(f'    "{line}\\n"\n' for line in out).replace(
        "CP_MEMO_MPI_AT", '" CP_STRING(CP_MEMO_MPI_AT) "')  # code_padding.h
    return (f'__asm__(".pushsection cp_quiet,\\"ax\\",@progbits\\n"\n    ".p2align 4\\n"\n    ".globl {fn}\\n"\n'
            f'    ".type {fn}, @function\\n"\n    "{fn}:\\n"\n    ".cfi_startproc\\n"\n'
            f'{body}    ".cfi_endproc\\n"\n    ".size {fn}, .-{fn}\\n"\n    ".popsection\\n");')

F_HANDLES = {"MPI_Datatype": "Type", "MPI_Op": "Op", "MPI_Comm": "Comm", "MPI_Info": "Info"}


def fortran_names(fn):
    """The symbols a Fortran compiler may call for fn: mpif.h and `use mpi`
    (gfortran's one trailing underscore first, then the other manglings),
    and `use mpi_f08`."""
    low = fn.lower()
    return [low + "_", low + "__", low, fn.upper()], low + "_f08_"


def fortran_wrapper(fn, form, params):
    """A Fortran entry point of fn: handles arrive as MPI_Fint by reference,
    buffers may be Fortran's sentinels, ierror may be absent (mpi_f08)."""
    if form == "nonblocking":
        params += ", MPI_Request *request"
    elif form == "persistent":
        params += ", MPI_Info info, MPI_Request *request"
    neighbor = "Neighbor" in fn
    fparams, pre, args, post, typed = [], [], [], [], []
    for p in params.split(","):
        m = re.match(r"(const )?(void|int|MPI_\w+) (\*)?(\w+)(\[\])?$", p.strip())
        const, typ, star, name, arr = m.groups()
        if typ == "void":
            fparams.append(f"{const or ''}void *{name}")
            args.append(f"cp_f2c_buffer({name})")
        elif typ == "int":
            fparams.append(f"const MPI_Fint {name}[]" if arr else f"MPI_Fint *{name}")
            args.append(name if arr else f"*{name}")
        elif typ == "MPI_Aint" and arr:
            fparams.append(f"const MPI_Aint {name}[]")
            args.append(name)
        elif typ == "MPI_Datatype" and arr:
            # One datatype per peer: the arrays are as long as the group
            # (or the neighbourhood) the collective addresses.
            peers = ("CP_F_OUT" if name.startswith("send") else "CP_F_IN") if neighbor \
                else "CP_F_GROUP"
            fparams.append(f"const MPI_Fint {name}[]")
            pre.append(f"MPI_Datatype *c_{name} = cp_f2c_types({name}, c_comm, {peers});")
            args.append(f"c_{name}")
            post.append(f"free(c_{name});")
            typed.append(f"c_{name}")
        elif typ == "MPI_Request" and star:
            fparams.append(f"MPI_Fint *{name}")
            pre.append(f"MPI_Request c_{name} = MPI_REQUEST_NULL;")
            args.append(f"&c_{name}")
            post.append(f"if (rc == MPI_SUCCESS)\n        *{name} = MPI_Request_c2f(c_{name});")
        elif typ in F_HANDLES and not arr and not star:
            fparams.append(f"MPI_Fint *{name}")
            args.append("c_comm" if typ == "MPI_Comm" else f"MPI_{F_HANDLES[typ]}_f2c(*{name})")
        else:
            sys.exit(f"gen_wrappers.py: no Fortran conversion for parameter '{p.strip()}' of {fn}")
    fparams.append("MPI_Fint *ierror")
    check = ""
    if typed:
        names = " || ".join("!" + x for x in typed)
        check = f"""    if ({names}) {{ /* out of memory, as the MPI library's own binding would be */
        {" ".join(f"free({x});" for x in typed)}
        cp_f_set_error(ierror, MPI_ERR_NO_MEM);
        return;
    }}
"""
    plain, f08 = fortran_names(fn)
    body_pre = "".join(f"    {x}\n" for x in pre)
    body_post = "".join(f"    {x}\n" for x in post)
    proto = ", ".join(fparams)
    aliases = "".join(f'CP_EXPORT void {a}({proto}) __attribute__((alias("{plain[0]}")));\n'
                      for a in plain[1:] + [f08])
    return f"""
CP_EXPORT void {plain[0]}({proto})
{{
    MPI_Comm c_comm = MPI_Comm_f2c(*comm);
{body_pre}{check}    int rc = {fn}({", ".join(args)});
{body_post}    cp_f_set_error(ierror, rc);
}}
{aliases}"""


def forms_header(funcs, build):
    """For the tests: which forms this build has, and the persistent names
    mapped onto the library's own."""
    out = ["/* Generated by lib/gen_wrappers.py from model/wrappers.tbl: do not edit. */",
           "#ifndef COLLPROF_MPI_FORMS_H", "#define COLLPROF_MPI_FORMS_H", "",
           "/* 1 when the MPI library has the form (its collectives are wrapped). */",
           f"#define CP_HAVE_PERSISTENT {int(build.has_form('persistent'))}",
           f"#define CP_HAVE_LARGE {int(build.has_form('large'))}", ""]
    if build.persistent_prefix != "MPI_":
        out += ["/* The persistent collectives under the library's own names. */",
                "#include <mpi-ext.h>"]
        for name, _, _, forms, _ in funcs:
            if "persistent" in forms:
                base = name[len("MPI_"):]
                out.append(f"#define {name}_init {build.persistent_prefix}{base}_init")
        out.append("")
    if not build.has_form("large"):
        out += ["/* The library has no large-count forms: their names stand for a call",
                " * that fails, so that code choosing a form at run time still compiles;",
                " * tests run the int form instead where CP_HAVE_LARGE is 0. */"]
        for name, _, _, forms, _ in funcs:
            if "large" in forms:
                for fn, _, _ in variants(name, [f for f in forms if f != "large"], FULL):
                    out.append(f"#define {fn}_c(...) MPI_ERR_OTHER")
        out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def creator(fn, params, newcomm, like):
    return f"""
CP_EXPORT int {fn}({params})
{{
    int rc = P{fn}({arg_names(params)});
    cp_comm_created(rc, {newcomm}, {like or "MPI_COMM_NULL"});
    return rc;
}}
"""


def options(argv):
    build = Build()
    i = 0
    while i < len(argv):
        opt, val = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if val is None:
            sys.exit(f"gen_wrappers.py: {opt} needs a value")
        if opt == "--mpi-version":
            build.mpi_version = version(val, "--mpi-version")
        elif opt == "--persistent-prefix":
            build.persistent_prefix = val
        elif opt == "--fortran" and val in ("none", "openmpi"):
            build.fortran = val
        else:
            sys.exit(f"gen_wrappers.py: unknown option {opt} {val}")
        i += 2
    return build


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    table, out_c, out_forms, out_fortran = sys.argv[1:5]
    build = options(sys.argv[5:])
    shapes, funcs, creators = parse(table)

    with open(out_forms, "w", encoding="utf-8") as f:
        f.write(forms_header(funcs, build))

    def c_head(includes):
        ext = "#include <mpi-ext.h>\n" if build.persistent_prefix != "MPI_" else ""
        return ("/* Generated by lib/gen_wrappers.py from model/wrappers.tbl: do not edit. */\n"
                + includes + ext)

    with open(out_c, "w", encoding="utf-8") as w:
        w.write(c_head('#include "call_memo.h"\n#include "export.h"\n#include "code_padding.h"\n#include "persistent.h"\n'))
        # The wrappers' assembly goes out before the C functions, in order
        # with other top-level assembly: its padding is of that kind too,
        # in .text and in the quiet section, where the fronts are
        # (signals.h).
        w.write("#ifdef CP_PAD_WRAPPERS\n#if defined(__x86_64__)\n"
                "__asm__(\".text\\n.skip \" CP_STRING(CP_PAD_WRAPPERS) \"\\n\");\n"
                "__asm__(\".pushsection cp_quiet,\\\"ax\\\",@progbits\\n.skip \" "
                "CP_STRING(CP_PAD_WRAPPERS) \"\\n.popsection\\n\");\n"
                "#else\nCP_PLACEMENT_PAD(cp_pad_wrappers, CP_PAD_WRAPPERS)\n"
                "#endif\n#endif\n")
        for name, coll, shape, forms, _ in funcs:
            params, capture = shapes[shape]
            for fn, form, is_large in variants(name, forms, build):
                w.write(wrapper(fn, form, is_large, coll, params, capture))
        for fn, params, newcomm, since, like in creators:
            if build.mpi_version >= since:
                w.write(creator(fn, params, newcomm, like))

    with open(out_fortran, "w", encoding="utf-8") as w:
        if build.fortran == "openmpi":
            w.write(c_head('#include <stdlib.h>\n\n#include "export.h"\n#include "fortran/fortran.h"\n'))
            for name, coll, shape, forms, _ in funcs:
                params = shapes[shape][0]
                for fn, form, is_large in variants(name, forms, build):
                    if not is_large:  # Fortran's large-count forms are MPI 4.0 too
                        w.write(fortran_wrapper(fn, form, params))
        else:
            w.write(c_head("/* This MPI library's Fortran bindings call the C MPI_ functions. */\n"))


if __name__ == "__main__":
    main()
