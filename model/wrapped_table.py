"""The one table of wrapped MPI collectives, model/wrappers.tbl: its grammar
and the entry points of each line (which forms an MPI library has).  Read by
model/gen_collectives.py (the collectives, the same for every MPI library)
and lib/gen_wrappers.py (the wrappers one library gets)."""
import re
import sys

FORMS = ("blocking", "nonblocking", "persistent")
# The MPI standard version that brought each form (the rest: MPI 3.1 or
# older, which every supported library has).
FORM_SINCE = {"persistent": (4, 0), "large": (4, 0)}


def parse(path):
    shapes, funcs, creators = {}, [], []
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            where = f"{path}:{lineno}"
            if line.startswith("create "):
                if len(fields) not in (3, 4):
                    sys.exit(f"{where}: expected 'create MPI_Name | params | new communicator"
                             " [= the communicator whose groups and topology it has]"
                             " [| MPI version that brought it]'")
                since = version(fields[3], where) if len(fields) == 4 else (1, 0)
                new, _, like = (x.strip() for x in fields[2].partition("="))
                params = [p.split()[-1].lstrip("*") for p in fields[1].split(",")]
                if new not in params or (like and like not in params):
                    sys.exit(f"{where}: '{fields[2]}' must name parameters of {fields[0]}")
                creators.append((fields[0].split()[1], fields[1], new, since, like or None))
                continue
            if line.startswith("shape "):
                if len(fields) != 3:
                    sys.exit(f"{where}: expected 'shape NAME | params | capture'")
                shapes[fields[0].split()[1]] = (fields[1], fields[2])
                continue
            if len(fields) != 4 or not fields[0].startswith("MPI_"):
                sys.exit(f"{where}: expected 'MPI_Name | Collective | shape | forms'")
            name, coll, shape, forms = fields
            if shape not in shapes:
                sys.exit(f"{where}: unknown shape '{shape}'")
            forms = forms.split()
            for form in forms:
                if form not in FORMS + ("large",):
                    sys.exit(f"{where}: unknown form '{form}'")
            funcs.append((name, coll, shape, forms, where))
    return shapes, funcs, creators


def version(text, where):
    m = re.fullmatch(r"(\d+)\.(\d+)", text.strip())
    if not m:
        sys.exit(f"{where}: expected an MPI version such as 4.0, not '{text}'")
    return (int(m.group(1)), int(m.group(2)))


class Build:
    """What the MPI library built against provides."""

    def __init__(self, mpi_version=(99, 0), persistent_prefix="MPI_", fortran="none"):
        self.mpi_version = mpi_version
        self.persistent_prefix = persistent_prefix
        self.fortran = fortran

    def has_form(self, form):
        if form == "persistent" and self.persistent_prefix != "MPI_":
            return True
        return self.mpi_version >= FORM_SINCE.get(form, (1, 0))


FULL = Build()


def variants(name, forms, build=FULL):
    """(function name, form, is_large) for each entry point of a table line
    that the MPI library has."""
    base = name[len("MPI_"):]
    out = []
    for form in forms:
        if form == "large" or not build.has_form(form):
            continue
        fn = {"blocking": f"MPI_{base}",
              "nonblocking": f"MPI_I{base[0].lower()}{base[1:]}",
              "persistent": f"{build.persistent_prefix}{base}_init"}[form]
        out.append((fn, form, False))
        if "large" in forms and build.has_form("large"):
            out.append((fn + "_c", form, True))
    return out


