"""Reading a bench spec and checking it against the contract (workflow/scripts/README.md).

Every problem is a UsageError naming the spec file and the field.
"""

import json
from pathlib import Path

from libraries import NAME as LIBRARY  # the JWS library of suites jwt, tokensize, transfer, percall


class UsageError(Exception):
    pass


# suite -> (operations its cells may name, input kinds its cells may take)
SUITES = {
    "jwt": (("sign", "verify", "decode"), ("claims", "records")),
    "tokensize": (("sign",), ("records",)),
    "transfer": (("request-response",), ("claims",)),
    "hash": (("hex-digest", "generate", "digest"), ()),
    "percall": (("sign", "verify", "decode"), ("claims",)),
    "primitive": (("digest", "mac", "encrypt", "sign", "verify"), ("bytes",)),
    "keygen": (("keygen+sign+verify", "keygen", "sign", "verify"), ()),
    "harness": (("empty", "trivial"), ()),
}
# suite -> the one implementation its cells use, and may name in `implementation`
# (suites primitive and keygen: per operation, below; harness: the library, whose loop it is)
IMPLEMENTATIONS = {
    suite: "hashlib" if suite == "hash" else LIBRARY for suite in SUITES if suite not in ("primitive", "keygen")
}
# suite primitive: operation -> (its algorithms, the implementation that does its work)
PRIMITIVE_OPERATIONS = {
    "digest": (("SHA-256", "SHA-512"), "hashlib"),
    "mac": (("HMAC-SHA256",), "cryptography"),
    "encrypt": (("AES-256-GCM",), "cryptography"),
    "sign": (("RSA-SHA256", "ECDSA-SHA256", "Ed25519"), "cryptography"),
    "verify": (("RSA-SHA256", "ECDSA-SHA256", "Ed25519"), "cryptography"),
}
# suite primitive: operation -> the fields its known_answer has (all hex strings)
KNOWN_ANSWER_FIELDS = {
    "digest": ("message_hex", "output_hex"),
    "mac": ("key_hex", "message_hex", "output_hex"),
    "encrypt": ("key_hex", "nonce_hex", "message_hex", "output_hex"),
}
# suite keygen: the implementations a cell may name (the first is the default), and
# family -> its key sizes and algorithms
KEYGEN_IMPLEMENTATIONS = ("cryptography", "pycryptodome")
KEYGEN_FAMILIES = {
    "RSA": ((2048, 3072, 4096, 7680, 15360), ("RSA-SHA256", "RSA-SHA512")),
    "ECDSA": ((256, 384, 521), ("ECDSA-SHA256", "ECDSA-SHA512")),
}
KEY_FIELDS = ("private_key", "public_key")
CELL_TEXT_FIELDS = ("operation", "algorithm", "private_key", "public_key", "input", "input_file")
HASH_CELL_TEXT_FIELDS = ("operation", "algorithm", "input")
HASH_ALGORITHMS = ("MD5", "SHA-1", "SHA-256", "SHA-512")
MESSAGE_PARTS = ("cached-uuid", "fresh-uuid", "time-ms")
# field -> (its bound, whether the bound itself is allowed)
TIMING_FIELDS = {
    "warmup_seconds": (0, True),
    "samples": (1, True),
    "target_sample_seconds": (0, False),
    "max_cell_seconds": (0, False),
    "warmup_max_seconds": (0, True),
    "process_warmup_seconds": (0, True),
    "steady_window": (2, True),
    "steady_tolerance": (0, False),
    "min_samples": (1, True),
    "target_ci_pct": (0, True),
    "confidence": (0, False),
}
CALIBRATED_TIMING = ("warmup_seconds", "samples", "target_sample_seconds", "max_cell_seconds")
# the timing fields each suite needs (the others are checked when present; the
# steadiness fields default to warmup_max_seconds 0, i.e. no steadiness check)
TIMING_USED = {
    "jwt": CALIBRATED_TIMING,
    "tokensize": ("max_cell_seconds",),
    "transfer": ("max_cell_seconds",),
    "hash": CALIBRATED_TIMING,
    "percall": ("max_cell_seconds",),
    "primitive": CALIBRATED_TIMING,
    "keygen": CALIBRATED_TIMING,  # its sign and verify cells
    "harness": CALIBRATED_TIMING,
}
# suite -> its own section of the spec and that section's fields (all required)
SECTIONS = {
    "transfer": {"trials": (1, True), "warmup_trials": (0, True), "request_timeout_seconds": (0, False)},
    "percall": {"warmup_calls": (0, True), "calls": (1, True)},
    "keygen": {
        "iterations": (1, True),
        "target_cell_seconds": (0, True),
        "max_iterations": (1, True),
        "max_cell_seconds": (0, False),
    },
}
INTEGER_FIELDS = (
    "samples",
    "min_samples",
    "steady_window",
    "trials",
    "warmup_trials",
    "warmup_calls",
    "calls",
    "iterations",
    "max_iterations",
    "alternations",
)
# a crosscheck spec's own object (all required), and the operations its cells may name
CROSSCHECK_FIELDS = {"alternations": (1, True), "block_seconds": (0, False)}
CROSSCHECK_OPERATIONS = ("sign", "verify")


def read_file(path, what):
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from exc


def one_of(values):
    return ", ".join(values)


def is_number(value, integer=False):
    kinds = int if integer else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool)


def check_object(value, name):
    if not isinstance(value, dict):
        raise UsageError(f"{name} is not a JSON object")


def check_numbers(section, name, fields, required):
    """Each of `required` is present; every field of `fields` present is a number in range."""
    check_object(section, name)
    for field in required:
        if field not in section:
            raise UsageError(f"{name} lacks {field!r}")
    for field, (bound, inclusive) in fields.items():
        if field not in section:
            continue
        value = section[field]
        if not is_number(value, integer=field in INTEGER_FIELDS):
            kind = "an integer" if field in INTEGER_FIELDS else "a number"
            raise UsageError(f"{name}.{field} = {value!r} is not {kind}")
        if value < bound or (value == bound and not inclusive):
            relation = ">=" if inclusive else ">"
            raise UsageError(f"{name}.{field} = {value!r} must be {relation} {bound}")


def check_texts(cell, name, fields):
    for field in fields:
        if field not in cell:
            raise UsageError(f"{name} lacks {field!r}")
        if not isinstance(cell[field], str) or not cell[field]:
            raise UsageError(f"{name}.{field} = {cell[field]!r} is not a non-empty string")


def check_cell(cell, name, suite):
    """Check one cell; fill in the default input_kind (suites other than hash)."""
    check_object(cell, name)
    operations, input_kinds = SUITES[suite]
    if suite == "primitive":
        check_primitive_cell(cell, name)
        return
    if suite == "keygen":
        check_keygen_cell(cell, name)
        return
    if suite == "harness":
        check_harness_cell(cell, name)
        return
    check_texts(cell, name, HASH_CELL_TEXT_FIELDS if suite == "hash" else CELL_TEXT_FIELDS)
    if "key_bits" not in cell:
        raise UsageError(f"{name} lacks 'key_bits'")
    if cell["operation"] not in operations:
        raise UsageError(f"{name}.operation {cell['operation']!r} is not one of suite {suite}'s: {one_of(operations)}")
    if cell.get("implementation", IMPLEMENTATIONS[suite]) != IMPLEMENTATIONS[suite]:
        raise UsageError(
            f"{name}.implementation {cell['implementation']!r} is not one this driver has for suite "
            f"{suite} ({IMPLEMENTATIONS[suite]})"
        )
    if suite == "hash":
        check_hash_cell(cell, name)
        return
    if not is_number(cell["key_bits"], integer=True) or cell["key_bits"] < 1:
        raise UsageError(f"{name}.key_bits = {cell['key_bits']!r} is not a positive integer")
    given = repr(cell["input_kind"]) if "input_kind" in cell else "absent (so 'claims')"
    cell.setdefault("input_kind", "claims")
    if cell["input_kind"] not in input_kinds:
        raise UsageError(f"{name}.input_kind {given} is not one of suite {suite}'s: {one_of(input_kinds)}")


def check_operation(cell, name, suite, operations):
    if cell["operation"] not in operations:
        raise UsageError(f"{name}.operation {cell['operation']!r} is not one of suite {suite}'s: {one_of(operations)}")


def check_algorithm(cell, name, algorithms):
    if cell["algorithm"] not in algorithms:
        raise UsageError(
            f"{name}.algorithm {cell['algorithm']!r} is not one of {cell['operation']}'s: {one_of(algorithms)}"
        )


def check_message_bytes(cell, name, least):
    length = cell.get("message_bytes")
    if not is_number(length, integer=True) or length < least:
        raise UsageError(f"{name}.message_bytes = {length!r} is not an integer >= {least}")


def check_implementation(cell, name, suite, allowed):
    """The cell's implementation, one of `allowed`; the first is filled in when absent."""
    cell.setdefault("implementation", allowed[0])
    if cell["implementation"] not in allowed:
        raise UsageError(
            f"{name}.implementation {cell['implementation']!r} is not one this driver has for "
            f"{suite} {cell['operation']} ({one_of(allowed)})"
        )


def check_hex(known, name, fields):
    """Each field a hex string; all but the message non-empty."""
    for field in fields:
        value = known.get(field)
        try:
            if not value and field != "message_hex":
                raise ValueError
            bytes.fromhex(value)
        except (TypeError, ValueError):
            raise UsageError(
                f"{name}.{field} = {value!r} is not a {'' if field == 'message_hex' else 'non-empty '}hex string"
            ) from None


def check_primitive_cell(cell, name):
    """A primitive cell: its operation and algorithm, its message (message_bytes, or
    input_file with input_kind bytes), its key files, its known answer."""
    check_texts(cell, name, ("operation", "algorithm", "input"))
    check_operation(cell, name, "primitive", PRIMITIVE_OPERATIONS)
    algorithms, implementation = PRIMITIVE_OPERATIONS[cell["operation"]]
    check_algorithm(cell, name, algorithms)
    check_implementation(cell, name, "primitive", (implementation,))
    bits = cell.get("key_bits")
    if cell["operation"] == "digest":
        if bits != 0 or not is_number(bits, integer=True):
            raise UsageError(f"{name}.key_bits = {bits!r} is not 0 (a digest cell has no key)")
    else:
        if not is_number(bits, integer=True) or bits < 1:
            raise UsageError(f"{name}.key_bits = {bits!r} is not a positive integer")
        check_texts(cell, name, KEY_FIELDS)
    if "input_kind" in cell or "input_file" in cell:
        if cell.get("input_kind") != "bytes":
            raise UsageError(f"{name}.input_kind {cell.get('input_kind')!r} is not 'bytes' (a cell with input_file)")
        check_texts(cell, name, ("input_file",))
    else:
        check_message_bytes(cell, name, 0)
    if cell["operation"] in KNOWN_ANSWER_FIELDS:
        if "known_answer" not in cell:
            raise UsageError(f"{name} lacks 'known_answer'")
        check_object(cell["known_answer"], f"{name}.known_answer")
        check_hex(cell["known_answer"], f"{name}.known_answer", KNOWN_ANSWER_FIELDS[cell["operation"]])


def check_keygen_cell(cell, name):
    """A keygen cell: family, key size, algorithm (the hash), message length, key files,
    implementation."""
    check_texts(cell, name, ("operation", "algorithm", "input", "family", *KEY_FIELDS))
    check_operation(cell, name, "keygen", SUITES["keygen"][0])
    family = cell["family"]
    if family not in KEYGEN_FAMILIES:
        raise UsageError(f"{name}.family {family!r} is not one of {one_of(KEYGEN_FAMILIES)}")
    sizes, algorithms = KEYGEN_FAMILIES[family]
    if cell.get("key_bits") not in sizes or not is_number(cell.get("key_bits"), integer=True):
        raise UsageError(
            f"{name}.key_bits = {cell.get('key_bits')!r} is not one of {family}'s: {one_of(map(str, sizes))}"
        )
    check_algorithm(cell, name, algorithms)
    check_message_bytes(cell, name, 0 if cell["operation"] == "keygen" else 1)
    check_implementation(cell, name, "keygen", KEYGEN_IMPLEMENTATIONS)


def check_harness_cell(cell, name):
    """A harness cell: its operation, algorithm none, key_bits 0; no key, no input file."""
    check_texts(cell, name, HASH_CELL_TEXT_FIELDS)
    check_operation(cell, name, "harness", SUITES["harness"][0])
    check_algorithm(cell, name, ("none",))
    if cell.get("key_bits") != 0 or not is_number(cell.get("key_bits"), integer=True):
        raise UsageError(f"{name}.key_bits = {cell.get('key_bits')!r} is not 0 (a harness cell has no key)")
    if cell.get("implementation", LIBRARY) != LIBRARY:
        raise UsageError(f"{name}.implementation {cell['implementation']!r} is not this driver's library ({LIBRARY})")


def check_hash_cell(cell, name):
    """A hash cell: no key, its algorithm, its message (parts or a length), its known answer."""
    if cell["key_bits"] != 0 or not is_number(cell["key_bits"], integer=True):
        raise UsageError(f"{name}.key_bits = {cell['key_bits']!r} is not 0 (a hash cell has no key)")
    operation = cell["operation"]
    algorithms = ("none",) if operation == "generate" else HASH_ALGORITHMS
    if cell["algorithm"] not in algorithms:
        raise UsageError(f"{name}.algorithm {cell['algorithm']!r} is not one of {operation}'s: {one_of(algorithms)}")
    if operation == "digest":
        length = cell.get("message_bytes")
        if not is_number(length, integer=True) or length < 1:
            raise UsageError(f"{name}.message_bytes = {length!r} is not a positive integer")
    else:
        parts = cell.get("message")
        if not isinstance(parts, list) or not parts or not all(part in MESSAGE_PARTS for part in parts):
            raise UsageError(f"{name}.message = {parts!r} is not a non-empty list of {one_of(MESSAGE_PARTS)}")
    if operation != "generate":
        if "known_answer" not in cell:
            raise UsageError(f"{name} lacks 'known_answer'")
        known = cell["known_answer"]
        check_object(known, f"{name}.known_answer")
        if not isinstance(known.get("message"), str):  # may be empty
            raise UsageError(f"{name}.known_answer.message = {known.get('message')!r} is not a string")
        check_texts(known, f"{name}.known_answer", ("digest_hex",))


def check_spec(spec, where):
    check_object(spec, where)
    for field in ("suite", "timing", "cells"):
        if field not in spec:
            raise UsageError(f"{where} lacks {field!r}")
    suite = spec["suite"]
    if suite not in SUITES:
        raise UsageError(f"{where}: suite {suite!r} is not one this driver runs ({one_of(SUITES)})")
    check_numbers(spec["timing"], f"{where}: timing", TIMING_FIELDS, TIMING_USED[suite])
    if suite in SECTIONS:
        if suite not in spec:
            raise UsageError(f"{where} lacks {suite!r} (suite {suite} needs it)")
        check_numbers(spec[suite], f"{where}: {suite}", SECTIONS[suite], tuple(SECTIONS[suite]))
        if suite == "keygen" and spec[suite]["max_iterations"] < spec[suite]["iterations"]:
            raise UsageError(f"{where}: keygen.max_iterations is below keygen.iterations")
    timing = spec["timing"]
    if timing.get("samples", 0) > MAX_SAMPLES or timing.get("confidence", 0.5) >= 1:
        raise UsageError(f"{where}: timing.samples must be at most {MAX_SAMPLES} and timing.confidence below 1")
    cells = spec["cells"]
    if not isinstance(cells, list) or not cells:
        raise UsageError(f"{where}: cells is not a non-empty list")
    for index, cell in enumerate(cells):
        check_cell(cell, f"{where}: cells[{index}]", suite)
    check_pairs(spec.get("pairs", []), f"{where}: pairs", len(cells))


MAX_SAMPLES = 1000  # the stopping rule: 0.5 ** samples stays a normal double


def check_pairs(pairs, name, count):
    """The stopping rule's pairs: [i, j] cell indexes, two different cells of the spec."""
    if not isinstance(pairs, list):
        raise UsageError(f"{name} is not a list")
    for index, pair in enumerate(pairs):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(is_number(i, integer=True) for i in pair)
            or not all(0 <= i < count for i in pair)
            or pair[0] == pair[1]
        ):
            raise UsageError(f"{name}[{index}] = {pair!r} is not two different cell indexes below {count}")


def load_spec(path):
    """The spec at `path`, checked, with every JWT cell's input_kind and every primitive and
    keygen cell's implementation filled in."""
    try:
        spec = json.loads(read_file(path, "spec"))
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
        raise UsageError(f"spec {path} is not JSON: {exc}") from exc
    check_spec(spec, f"spec {path}")
    return spec


def load_crosscheck_spec(path):
    """The crosscheck spec at `path`, checked: a bench spec of suite jwt whose cells sign or
    verify, with its crosscheck object (alternations, block_seconds)."""
    spec = load_spec(path)
    where = f"spec {path}"
    if spec["suite"] != "jwt":
        raise UsageError(f"{where}: suite {spec['suite']!r} is not jwt (crosscheck times suite jwt's cells)")
    if "crosscheck" not in spec:
        raise UsageError(f"{where} lacks 'crosscheck'")
    check_numbers(spec["crosscheck"], f"{where}: crosscheck", CROSSCHECK_FIELDS, tuple(CROSSCHECK_FIELDS))
    for index, cell in enumerate(spec["cells"]):
        if cell["operation"] not in CROSSCHECK_OPERATIONS:
            raise UsageError(
                f"{where}: cells[{index}].operation {cell['operation']!r} is not one crosscheck times: "
                f"{one_of(CROSSCHECK_OPERATIONS)}"
            )
    return spec
