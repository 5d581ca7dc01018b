"""Where the python3 running this imports packages from, for an install
prefix (argv[1]): Debian's own interpreter reads /usr/local/lib/python3.X/
dist-packages for /usr/local and /usr/lib/python3/dist-packages for /usr,
not the site-packages that the generic scheme names."""
import sys
import sysconfig

prefix = sys.argv[1].rstrip("/") or "/"
schemes = sysconfig.get_scheme_names()
if prefix == "/usr/local" and "posix_local" in schemes:
    print(sysconfig.get_path("platlib", "posix_local"))
elif prefix == "/usr" and "deb_system" in schemes:
    print(sysconfig.get_path("platlib", "deb_system"))
else:
    print(sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
