"""Check drivers through their CLI: sign every variant, accept valid, reject forgeries.

Two modes, chosen by the rule's outputs:
- self-check (rule check_driver, output `tokens`): one language signs every variant and
  verifies its own token, the token with one signature bit flipped, and an unsigned
  (alg: none) twin; then it checks the JWS known answers (data/vectors/
  jws-known-answers.json: RFC 7515 A.1-A.4, RFC 8037 A.4) as `verify --signature-only`
  does: each RFC token must give exactly its payload, its twin with the payload changed (the
  signature kept) and its alg: none twin must be rejected. A driver may answer
  `unsupported` only for the algorithms its driver.yaml declares, and must for those. Any
  wrong verdict fails the job: that language is not timed.
- interop (rule check_interop, output `matrix`): every language verifies every other
  language's tokens and their forged twins. The matrix (self rows included) is written
  whatever it holds; the report names every failure.
Drivers run as they will be timed: natively, or each call in a fresh container that sees
only the keys, the payload and the scratch directory holding the tokens to verify. A
self-check is two processes of the driver: one `sign-batch` (the same sign as the `sign`
command) and one `verify-batch` (the same verify as `verify`, with the verified claims on
each accepted line to compare with what was signed, and the known answers as
`signature_only` cases giving their payload bytes); interop is one `verify-batch` per
verifier (the matrix's checks grow with the square of the drivers). A process start per
check cost about a second each in java, and in containers a `podman exec` each.
"""

import base64
import contextlib
import csv
import json
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jwtbench import config_validation, driver_runner, jwk_keys, result_tables, variants
from jwtbench.jwk_keys import b64url_decode

EXIT_UNSUPPORTED = 3
# RFC 9864's names of one algorithm: EdDSA (over Ed25519 here) and its fully-specified Ed25519.
SAME_ALGORITHM = {"EdDSA", "Ed25519"}


def file_name(text):
    """A scratch file's name from driver names, which may hold a slash ("node/jose")."""
    return text.replace("/", "~")


COLUMNS = result_tables.columns("interop.schema.yaml")
CHECKS = {"valid": "accept", "tampered": "reject", "alg_none": "reject"}
# The known-answer rows (variant: the vector's algorithm variant, as in summary.csv).
KNOWN_ANSWER_CHECKS = {"known_answer": "accept", "known_answer_tampered": "reject", "known_answer_alg_none": "reject"}
EXPECTED = {**CHECKS, **KNOWN_ANSWER_CHECKS}


def b64url_encode(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def forged_twins(token):
    """The token with the lowest bit of its first signature byte flipped, and unsigned."""
    header, body, signature = token.split(".")
    flipped = bytearray(b64url_decode(signature))
    flipped[0] ^= 0x01
    unsigned_header = b64url_encode(b'{"alg":"none","typ":"JWT"}')
    return {
        "valid": token,
        "tampered": f"{header}.{body}.{b64url_encode(bytes(flipped))}",
        "alg_none": f"{unsigned_header}.{body}.",
    }


def known_answer_twins(vector):
    """{check: (compact JWS, the payload bytes it carries)}: the RFC's token, the same with
    the lowest bit of the payload's first byte flipped (signature kept), and unsigned."""
    header, body, _ = vector["jws"].split(".")
    payload = b64url_decode(body)
    changed = bytearray(payload)
    changed[0] ^= 0x01
    signature = vector["jws"].rsplit(".", 1)[1]
    unsigned_header = b64url_encode(b'{"alg":"none"}')
    return {
        "known_answer": (vector["jws"], payload),
        "known_answer_tampered": (f"{header}.{b64url_encode(bytes(changed))}.{signature}", bytes(changed)),
        "known_answer_alg_none": (f"{unsigned_header}.{body}.", payload),
    }


def known_answer_variant(vector):
    """The seed-001 variant a vector exercises: RS256 with a 2048-bit key is RS256-2048."""
    jwk = vector["jwk"]
    bits = jwk_keys.b64url_int(jwk["n"]).bit_length() if jwk["kty"] == "RSA" else 0
    return variants.parse(variants.name_of(vector["algorithm"], bits))


def given_payload(line):
    """The payload bytes an accepted signature_only line gives, or None if it gives none."""
    try:
        return b64url_decode(line["payload_b64url"])
    except (KeyError, TypeError, ValueError):
        return None


class Checker(contextlib.ExitStack):
    """Runs drivers (a {language: driver params} dict) for the checks; a context manager
    holding each driver's session (and, in containers, its key copy) until the job ends."""

    def __init__(self, drivers, key_dir, payload, scratch, log):
        super().__init__()
        self.runners = {lang: driver_runner.DriverRunner.from_params(p) for lang, p in drivers.items()}
        self.languages = list(drivers)
        self.key_dir = key_dir
        self.payload = payload
        self.scratch = scratch
        self.claims = json.loads(Path(payload).read_bytes())
        self.log = log
        self.argv = {}

    def __enter__(self):
        super().__enter__()
        for language, runner in self.runners.items():
            session = runner.session(self.key_dir, read_only=[self.payload, self.scratch], reuse=True)
            self.argv[language] = self.enter_context(session)
            self.note(f"{language}: {runner.describe()}")
        return self

    def run(self, language, *args, text=True):
        return subprocess.run(
            self.argv[language](*args),
            capture_output=True,
            text=text,
            env=self.runners[language].environ(),
        )

    def batch(self, driver, command, entries):
        """{case id: its line} of the driver's `command` (verify-batch, sign-batch) over
        `entries`, the cases as the contract writes them; raises unless every case has its
        line and the process exited 0."""
        if not entries:
            return {}
        with tempfile.NamedTemporaryFile("w", suffix=".cases.json", dir=self.scratch, delete=False) as handle:
            json.dump({"cases": entries}, handle)
        Path(handle.name).chmod(0o644)  # a container's user reads it
        result = self.run(driver, command, "--cases", handle.name)
        lines = {}
        for line in result.stdout.splitlines():
            with contextlib.suppress(ValueError, KeyError, TypeError):
                answer = json.loads(line)
                lines[answer["id"]] = answer
        missing = [entry["id"] for entry in entries if entry["id"] not in lines]
        if result.returncode != 0 or missing:
            raise RuntimeError(
                f"{driver} {command} exited {result.returncode} with {len(missing)} of {len(entries)} "
                f"cases unanswered: {result.stderr.strip()[-500:]}"
            )
        return lines

    def sign_all(self, language, variant_list, tokens_dir):
        """Each variant's token written to tokens_dir, from one `sign-batch`: its path, or
        None where the library lacks the algorithm."""
        entries = [
            {
                "id": variant.name,
                "alg": variant.algorithm,
                "key": variants.key_files(variant, self.key_dir)[0],
                "payload": self.payload,
            }
            for variant in variant_list
        ]
        lines = self.batch(language, "sign-batch", entries)
        paths = []
        for variant in variant_list:
            line = lines[variant.name]
            if line.get("exit") == EXIT_UNSUPPORTED:
                self.note(f"{language} sign {variant.name}: unsupported")
                paths.append(None)
                continue
            if line.get("exit") != 0 or not line.get("token"):
                raise RuntimeError(
                    f"{language} sign {variant.name} exited {line.get('exit')}: {line.get('reason', '')}"
                )
            path = Path(tokens_dir) / f"{variant.name}.jwt"
            path.write_text(line["token"].strip() + "\n")
            paths.append(path)
        return paths

    def verdicts(self, verifier, entries, payloads=None):
        """{case id: verdict} of the verifier's `verify-batch` over `entries`: accept (and
        what it gives is what was signed: the claims, or for a `signature_only` case the
        bytes `payloads` holds under its id), reject, unsupported, or error (noted); a batch
        that fails as a whole raises."""
        payloads = payloads or {}
        lines = self.batch(verifier, "verify-batch", entries)
        return {
            entry["id"]: self.batch_verdict(verifier, entry["id"], lines[entry["id"]], payloads.get(entry["id"]))
            for entry in entries
        }

    def batch_verdict(self, verifier, case_id, line, payload=None):
        outcome = line.get("outcome")
        if outcome == "accept":
            if payload is None and line.get("claims") == self.claims:
                return "accept"
            if payload is not None and given_payload(line) == payload:
                return "accept"
            what = (
                "the claims differ from what was signed" if payload is None else "the payload differs from the token's"
            )
            self.note(f"{verifier} verify {case_id}: accepted, but {what}")
            return "error"
        if outcome in ("reject", "unsupported"):
            return outcome
        self.note(f"{verifier} verify {case_id}: {outcome} (exit {line.get('exit')}): {line.get('reason', '')}")
        return "error"

    def twin_cases(self, signer, verifier, variant, token_file):
        """The verify-batch cases of one token's three checks."""
        cases = []
        for check, token in forged_twins(Path(token_file).read_text().strip()).items():
            case_id = f"{signer}-{verifier}-{variant.name}-{check}"
            path = Path(self.scratch) / file_name(f"{case_id}.jwt")
            path.write_text(token + "\n")
            path.chmod(0o644)
            cases.append(
                {
                    "id": case_id,
                    "alg": variant.algorithm,
                    "key": variants.key_files(variant, self.key_dir)[1],
                    "token": str(path),
                    "claims": True,
                }
            )
        return cases

    def known_answer_cases(self, language, vector):
        """The verify-batch cases (`signature_only`) of one known-answer vector's three checks
        (see known_answer_twins), and {case id: the payload each must give if accepted}."""
        directory = Path(self.scratch) / "known-answers"
        directory.mkdir(exist_ok=True)
        _, key_file = jwk_keys.write_key_files(vector["jwk"], directory, file_name(f"{language}-{vector['name']}"))
        cases, payloads = [], {}
        for check, (token, payload) in known_answer_twins(vector).items():
            case_id = f"{language}-{vector['name']}-{check}"
            path = directory / file_name(f"{case_id}.jwt")
            path.write_text(token + "\n")
            path.chmod(0o644)
            cases.append(
                {
                    "id": case_id,
                    "alg": vector["algorithm"],
                    "key": str(key_file),
                    "token": str(path),
                    "signature_only": True,
                }
            )
            payloads[case_id] = payload
        return cases, payloads

    def rows_for(self, verifier, tokens, declared=None, known_answers=()):
        """The three checks of each token a verifier verifies, and of each known-answer
        vector (self-checks), in one verify-batch. tokens: [(signer, variant, token file or
        None (the signer lacks the variant), valid)], where `valid` is what the verifier must
        answer for the token itself (interop: `reject` when its header names the algorithm
        otherwise than the verifier's library, see header_alg)."""
        entries = [
            case
            for signer, variant, token_file, _ in tokens
            if token_file is not None
            for case in self.twin_cases(signer, verifier, variant, token_file)
        ]
        payloads = {}
        for vector in known_answers:
            cases, expected = self.known_answer_cases(verifier, vector)
            entries += cases
            payloads.update(expected)
        verdicts = self.verdicts(verifier, entries, payloads)
        rows = []
        for signer, variant, token_file, valid in tokens:
            for check in CHECKS:
                if token_file is None:
                    rows.append(self.row(signer, verifier, variant, check, "unsupported", declared))
                    continue
                expected = valid if check == "valid" else EXPECTED[check]
                observed = verdicts[f"{signer}-{verifier}-{variant.name}-{check}"]
                rows.append(self.row(signer, verifier, variant, check, observed, declared, expected))
        for vector in known_answers:
            variant = known_answer_variant(vector)
            for check in KNOWN_ANSWER_CHECKS:
                observed = verdicts[f"{verifier}-{vector['name']}-{check}"]
                rows.append(self.row(verifier, verifier, variant, check, observed, declared))
        return rows

    def row(self, signer, verifier, variant, check, observed, declared=None, expected=None):
        """One table row. `declared` (self-checks only): the algorithms the driver.yaml
        says the library lacks; observing `unsupported` for any other, or anything else
        for one of those, is a failure. Without it (interop), unsupported is not judged."""
        expected = expected or EXPECTED[check]
        as_expected = observed in ("accept", "reject") if expected == "either" else observed == expected
        if declared is None:
            ok = "" if observed == "unsupported" else str(as_expected).lower()
        elif variant.algorithm in declared:
            ok = "" if observed == "unsupported" else "false"
        else:
            ok = str(as_expected).lower()
        if declared is not None and ok == "false" and (observed == "unsupported") != (variant.algorithm in declared):
            self.note(
                f"{verifier} {variant.name} {check}: observed {observed}, but driver.yaml "
                f"{'declares' if variant.algorithm in declared else 'does not declare'} "
                f"{variant.algorithm} unsupported"
            )
        return [signer, verifier, variant.name, check, expected, observed, ok]

    def note(self, message):
        print(message, file=self.log, flush=True)


def write_table(path, rows):
    """The rows (lists in COLUMNS' order) as the table at `path`."""
    result_tables.write_csv(path, COLUMNS, [dict(zip(COLUMNS, row)) for row in rows])


def failures(rows):
    return [row for row in rows if row[-1] == "false"]


def self_check(checker, language, variant_list, tokens_dir, table, known_answers, declared):
    """`declared`: the algorithms the language's driver.yaml says its library lacks. Two
    calls of the driver: one sign-batch, one verify-batch."""
    Path(tokens_dir).mkdir(parents=True, exist_ok=True)
    declared = set(declared)
    tokens = checker.sign_all(language, variant_list, tokens_dir)
    own = [(language, variant, token, "accept") for variant, token in zip(variant_list, tokens)]
    rows = checker.rows_for(language, own, declared, known_answers)
    write_table(table, rows)
    bad = failures(rows)
    for row in bad:
        checker.note(f"FAILED {row}")
    checker.note(f"{language}: {len(rows)} checks, {len(bad)} failed")
    if bad:
        raise RuntimeError(f"{language} failed {len(bad)} of its own token checks (see {table}); it will not be timed")


def header_alg(token_dir, variant):
    """The `alg` a language's own token of the variant names, or None (it signed none)."""
    path = Path(token_dir) / f"{variant.name}.jwt"
    if not path.exists():
        return None
    return json.loads(b64url_decode(path.read_text().strip().split(".")[0])).get("alg")


def interop(checker, variant_list, token_dirs, self_tables, matrix, threads):
    rows = []
    for table in self_tables:
        with open(table) as handle:
            rows += [list(r.values()) for r in csv.DictReader(handle)]
    languages = checker.languages
    own_alg = {(language, v.name): header_alg(token_dirs[language], v) for language in languages for v in variant_list}

    def others_tokens(verifier):
        tokens = []
        for signer in languages:
            if signer == verifier:
                continue
            for variant in variant_list:
                token = Path(token_dirs[signer]) / f"{variant.name}.jwt"
                # A library that names the algorithm otherwise (fusionauth-jwt writes
                # Ed25519, RFC 9864's name, for EdDSA) pins its own name: the verifier
                # must reject a token that names it differently, as any other alg, except
                # where the two names are RFC 9864's for one algorithm on the same key
                # (EdDSA and Ed25519): a verifier may take both (rust/jwt-simple does).
                names = {own_alg[signer, variant.name], own_alg[verifier, variant.name]}
                renamed = None not in names and len(names) == 2
                valid = ("either" if names <= SAME_ALGORITHM else "reject") if renamed else "accept"
                tokens.append((signer, variant, token if token.exists() else None, valid))
        return tokens

    with ThreadPoolExecutor(threads) as pool:
        jobs = [pool.submit(checker.rows_for, verifier, others_tokens(verifier)) for verifier in languages]
        rows += [row for job in jobs for row in job.result()]
    write_table(matrix, rows)
    bad = failures(rows)
    for row in bad:
        checker.note(f"FAILED {row}")
    checker.note(f"matrix: {len(rows)} checks, {len(bad)} failed")


def run_job(snake):
    variant_list = [variants.parse(name) for name in snake.params.variants]
    key_dir = Path(snake.input.key_manifest).parent.resolve()
    with open(snake.log[0], "w") as log, tempfile.TemporaryDirectory(prefix="jwtbench-verify-") as scratch:
        Path(scratch).chmod(0o755)  # a container's user reads the tokens in it
        with Checker(snake.params.drivers, key_dir, snake.params.payload, scratch, log) as checker:
            if hasattr(snake.output, "matrix"):
                token_dirs = {config_validation.signed_tokens_driver(d): d for d in snake.input.tokens}
                interop(checker, variant_list, token_dirs, snake.input.tables, snake.output.matrix, snake.threads)
            else:
                language = snake.wildcards.driver
                self_check(
                    checker,
                    language,
                    variant_list,
                    snake.output.tokens,
                    snake.output.table,
                    jwk_keys.known_answers(snake.input.known_answers),
                    snake.params.unsupported,
                )


def record_versions(snake):
    """The driver's `versions` JSON, as the runner (native or its image) reports it."""
    runner = driver_runner.DriverRunner.from_params(snake.params.driver)
    with open(snake.log[0], "w") as log, runner.session() as argv:
        print(f"{runner.describe()}: versions", file=log, flush=True)
        result = subprocess.run(argv("versions"), capture_output=True, text=True, env=runner.environ())
        log.write(result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"{runner.language} versions exited {result.returncode}; see {snake.log[0]}")
    versions = json.loads(result.stdout)
    versions["runner"] = runner.describe()
    Path(snake.output[0]).write_text(json.dumps(versions) + "\n")
