"""The JWS library the harness times: an adapter module chosen by JWTBENCH_LIBRARY.

Unset (or "pyjwt"): PyJWT, the driver's own library (pyjwt_adapter.py). Any other name L:
the adapter of the further library's driver folder beside this file, L/adapter.py
(workflow/scripts/README.md, "A further library of a language"); its shim L/run sets
JWTBENCH_LIBRARY=L. Everything else (CLI, timing, stopping rule, raw samples, verify-batch)
is the same harness for every library.

An adapter module has:
  NAME, VERSION        the library's name (its driver folder's) and version, as loaded
  DISTRIBUTIONS        the packages `versions` lists under libraries (importlib.metadata names)
  INVALID_TOKEN        the exception type(s) the library documents for a token it refuses
  unsupported(alg)     why the library cannot do `alg`, or None
  signing_key(alg, data), verifying_key(alg, data)
                       the key file's bytes parsed once into the library's native key
  sign(claims, key, alg) -> compact JWS (str)
  verify(token, key, alg) -> the claims (a dict) under the verify policy, else raises
  verify_signature(token, key, alg) -> the payload bytes, through the library's JWS layer
  decode(token) -> the claims without verifying; None when the library has no such call,
  with NO_DECODE saying why
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
