"""The JWS library the harness times: pyjwt_adapter.py, or L/adapter.py beside this file
when JWTBENCH_LIBRARY=L (its shim L/run sets it). Everything else is shared.

An adapter module has NAME, VERSION (as loaded), DISTRIBUTIONS (what `versions` lists),
INVALID_TOKEN (the exception type(s) of a refused token), unsupported(alg) -> why or None,
signing_key/verifying_key(alg, data) -> the library's native key, sign(claims, key, alg)
-> compact JWS, verify(token, key, alg) -> claims under the verify policy,
verify_signature(token, key, alg) -> payload bytes, and decode(token) -> claims unverified
(None when the library has none, NO_DECODE saying why).
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

DEFAULT = "pyjwt"
NAME = os.environ.get("JWTBENCH_LIBRARY") or DEFAULT


def load(name):
    if name == DEFAULT:
        import pyjwt_adapter

        return pyjwt_adapter
    path = Path(__file__).resolve().parent / name / "adapter.py"
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name) or not path.is_file():
        print(f"error: JWTBENCH_LIBRARY={name!r} names no library of this driver (no {path})", file=sys.stderr)
        sys.exit(2)
    # a module name of its own: the folder's name is the library's package name
    spec = importlib.util.spec_from_file_location(f"{name.replace('-', '_')}_adapter", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


adapter = load(NAME)
