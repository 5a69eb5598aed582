"""Time PyJWT sign with the standard library's timeit, independently of the driver.

Shares no code with driver.py: it loads the same key file into the same kind of native
key object and signs the same payload, so its figure can be compared with jwtbench's.
Usage: crosscheck.py --alg ALG --key FILE --payload FILE   (prints one JSON object)
"""

import argparse
import gc
import json
import platform
import statistics
import timeit
from pathlib import Path

import jwt
from cryptography.hazmat.primitives.serialization import load_pem_private_key

REPEATS = 15


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alg", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--payload", required=True)
    args = parser.parse_args()

    raw_key = Path(args.key).read_bytes()
    key = raw_key if args.alg.startswith("HS") else load_pem_private_key(raw_key, None)
    claims = json.loads(Path(args.payload).read_bytes())

    # jwtbench leaves the garbage collector on (as an application would); so does this.
    timer = timeit.Timer(
        "jwt.encode(claims, key, algorithm=alg)",
        setup="gc.enable()",
        globals={"gc": gc, "jwt": jwt, "claims": claims, "key": key, "alg": args.alg},
    )
    number, _ = timer.autorange()  # about 0.2 s per repeat
    totals = timer.repeat(repeat=REPEATS, number=number)
    per_op = [total / number * 1e9 for total in totals]
    print(
        json.dumps(
            {
                "language": "python",
                "harness": "timeit",
                "harness_version": platform.python_version(),
                "operation": "sign",
                "algorithm": args.alg,
                "ns_per_op": statistics.median(per_op),
                "ns_per_op_min": min(per_op),
                "samples": REPEATS,
            }
        )
    )


if __name__ == "__main__":
    main()
