"""The conformance suite (rule check_conformance): what each library rejects.

For each JWS language, the hostile tokens of data/conformance/cases.yaml are built anew
from the run's keys (conformance_cases.py, just before that language's turn, so the
cases relative to now stay relative to the verify) and sent through the driver's
`verify-batch` as it will be timed (in its image or natively), with each case's
algorithm pinned. Every (language, case) gets a row of results/verify/conformance.csv:
the outcome, the exit status, the time and the peak memory of the call, and the verdict
against the RFCs' expectation.

A library's deviation from the RFCs is reported, not punished: it is timed like any
other. The driver's own failures fail the job (after the table is written, so nothing
measured is lost): a case past its time bound (a hang), a process that dies or leaves
cases unanswered (a crash), a stack trace or key material on any stream. So does a
deviation data/conformance/known-deviations.csv does not list: a case the library must
reject and now accepts (a version bump) fails the check instead of passing unnoticed.
"""

import base64
import csv
import json
import queue
import re
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from jwtbench import config_validation, conformance_cases, driver_runner, result_tables

KNOWN_DEVIATIONS = Path(__file__).resolve().parents[3] / "data" / "conformance" / "known-deviations.csv"
COLUMNS = result_tables.columns("conformance.schema.yaml")
# Verdicts: the RFCs' expectation met (as_required), an allowed answer (allowed: a may_accept
# case answered either way), a deviation, or none (unsupported algorithm, driver failure).
STACK_TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s+at [\w$.<>/]+\(.*\)\s*$|^\s+at .+:\d+:\d+\)?$|"
    r"goroutine \d+ \[|panicked at|Exception in thread|^\s+File \".+\", line \d+",
    re.MULTILINE,
)


def verdict(expected, observed):
    if observed not in ("accept", "reject", "error"):
        return ""
    accepted = observed == "accept"
    if expected == "must_reject":
        return "deviation" if accepted else "as_required"
    if expected == "must_accept":
        return "as_required" if accepted else "deviation"
    return "allowed"


def key_material(key_dir):
    """{what: text} for every secret of the run's keys a driver must never print: the HMAC
    secrets (base64url, base64, hex), each private PEM's base64 lines and each private
    JWK's private members."""
    secrets = {}
    for path in sorted(Path(key_dir).iterdir()):
        if path.name.endswith(".secret"):
            raw = path.read_bytes()
            for form, text in (
                ("base64url", base64.urlsafe_b64encode(raw).decode().rstrip("=")),
                ("base64", base64.b64encode(raw).decode().rstrip("=")),
                ("hex", raw.hex()),
            ):
                secrets[f"{path.name} ({form})"] = text
        elif path.name.endswith(".private.pem"):
            lines = [line for line in path.read_text().splitlines() if line and not line.startswith("-----")]
            for index, line in enumerate(lines):
                if len(line) >= 32:
                    secrets[f"{path.name} line {index + 1}"] = line
        elif path.suffix == ".jwk" and (".private." in path.name or path.name.startswith("hmac-")):
            jwk = json.loads(path.read_text())
            for member in ("d", "p", "q", "dp", "dq", "qi", "k"):
                if len(jwk.get(member, "")) >= 16:
                    secrets[f"{path.name} member {member}"] = jwk[member]
    return secrets


def leaks(text, secrets):
    return sorted(what for what, secret in secrets.items() if secret in text)


def eddsa_header_name(argv, runner, key_dir, scratch):
    """The alg the driver's own EdDSA tokens name (fusionauth-jwt writes RFC 9864's Ed25519,
    and pins it): it signs one; EdDSA when its library lacks the algorithm."""
    payload = Path(scratch) / "eddsa-name.json"
    payload.write_text('{"sub":"jwtbench-conformance"}')
    payload.chmod(0o644)
    signing_key = conformance_cases.Keys(key_dir).files("EdDSA")[0]
    result = subprocess.run(
        argv("sign", "--alg", "EdDSA", "--key", signing_key, "--payload", str(payload)),
        capture_output=True,
        text=True,
        env=runner.environ(),
    )
    if result.returncode != 0:
        return "EdDSA"
    header = result.stdout.strip().split(".")[0]
    return json.loads(conformance_cases.b64url_decode(header)).get("alg", "EdDSA")


class BatchRun:
    """One `verify-batch` process, read line by line with a time bound per case."""

    def __init__(self, argv, env, timeout):
        self.timeout = timeout
        self.process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True, errors="replace"
        )
        self.lines = queue.Queue()
        self.stdout = []
        self.stderr = []
        threading.Thread(target=self.pump, args=(self.process.stdout, self.stdout, True), daemon=True).start()
        self.stderr_reader = threading.Thread(
            target=self.pump, args=(self.process.stderr, self.stderr, False), daemon=True
        )
        self.stderr_reader.start()

    def pump(self, stream, keep, is_stdout):
        for line in stream:
            keep.append(line)
            if is_stdout:
                self.lines.put(line)
        if is_stdout:
            self.lines.put(None)

    def next_line(self):
        """The next stdout line; None at the end of the output; raises queue.Empty on a hang."""
        return self.lines.get(timeout=self.timeout)

    def finish(self, killed=False):
        if killed:
            self.process.kill()
        try:
            status = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        self.stderr_reader.join(timeout=10)
        return status


class Conformance:
    def __init__(self, cases, key_dir, versions, known, timeout, log):
        self.cases = cases
        self.key_dir = Path(key_dir).resolve()
        self.versions = versions
        self.known = known
        self.timeout = timeout
        self.log = log
        self.secrets = key_material(self.key_dir)
        self.problems = []  # the driver failures and new deviations that fail the job
        self.lock = threading.Lock()

    def note(self, message, problem=False):
        with self.lock:
            print(message, file=self.log, flush=True)
            if problem:
                self.problems.append(message)

    def run_language(self, name, driver):
        """Rows of one driver (a language's own, or a further library's): build its
        tokens, run its batch, judge each line."""
        runner = driver_runner.DriverRunner.from_params(driver)
        version = self.versions[name]
        language = version["language"]
        with tempfile.TemporaryDirectory(prefix=f"jwtbench-conformance-{language}-") as scratch:
            Path(scratch).chmod(0o755)  # a container's user reads the tokens
            with runner.session(self.key_dir, read_only=[scratch], reuse=True) as argv:
                eddsa_name = eddsa_header_name(argv, runner, self.key_dir, scratch)
                started = time.monotonic()
                cases_file = conformance_cases.write_cases(self.cases, self.key_dir, scratch, eddsa_name=eddsa_name)
                for path in Path(scratch).iterdir():
                    path.chmod(0o644)
                self.note(
                    f"{language}: {len(self.cases)} tokens built in {time.monotonic() - started:.1f} s "
                    f"(EdDSA as {eddsa_name}); {runner.describe()}"
                )
                results, status, output = self.batch(argv("verify-batch", "--cases", str(cases_file)), runner, language)
        self.check_output(language, output, status, len(results))
        rows = []
        for case in self.cases:
            line = results.get(
                case["id"],
                {"outcome": "not_run", "exit": "", "elapsed_ns": "", "peak_rss_kb": "", "reason": "no answer"},
            )
            observed = line["outcome"]
            judged = verdict(case["expected"], observed)
            rows.append(
                {
                    "language": language,
                    "implementation": version["implementation"],
                    "implementation_version": version["implementation_version"],
                    "case": case["id"],
                    "group": case["group"],
                    "alg": case["alg"],
                    "expected": case["expected"],
                    "observed": observed,
                    "exit": line["exit"],
                    "verdict": judged,
                    "elapsed_ns": line["elapsed_ns"],
                    "peak_rss_kb": line["peak_rss_kb"],
                    "reason": line["reason"],
                    "clause": case["clause"],
                    "requirement": case["requirement"],
                }
            )
            known = (language, version["implementation"], case["id"]) in self.known
            if judged == "deviation" and not known:
                self.note(
                    f"{language} ({version['implementation']} {version['implementation_version']}): "
                    f"{case['id']} {case['expected']} but {observed}, and data/conformance/"
                    "known-deviations.csv does not list it",
                    problem=True,
                )
            elif known and judged != "deviation":
                self.note(
                    f"{language}: {case['id']} no longer deviates ({observed}); "
                    "data/conformance/known-deviations.csv may drop it"
                )
        return rows

    def batch(self, argv, runner, language):
        """({case id: its line}, exit status, everything printed) of one verify-batch."""
        run = BatchRun(argv, runner.environ(), self.timeout)
        results, killed = {}, False
        expected_ids = [case["id"] for case in self.cases]
        while True:
            waiting_for = expected_ids[len(results)] if len(results) < len(expected_ids) else "the end"
            try:
                line = run.next_line()
            except queue.Empty:
                self.note(
                    f"{language}: no answer to case {waiting_for} within {self.timeout} s (a hang); stopped",
                    problem=True,
                )
                killed = True
                break
            if line is None:
                break
            try:
                answer = json.loads(line)
                results[answer["id"]] = {key: answer[key] for key in ("outcome", "exit", "elapsed_ns", "peak_rss_kb")}
                results[answer["id"]]["reason"] = str(answer.get("reason", ""))[:300]
            except (ValueError, KeyError, TypeError):
                self.note(f"{language}: a line that is not a case's answer: {line[:200]!r}", problem=True)
        status = run.finish(killed)
        return results, status, "".join(run.stdout) + "".join(run.stderr)

    def check_output(self, language, output, status, answered):
        if status != 0:
            self.note(
                f"{language}: verify-batch exited {status} after {answered} of {len(self.cases)} cases (a crash)",
                problem=True,
            )
        elif answered != len(self.cases):
            self.note(f"{language}: verify-batch answered {answered} of {len(self.cases)} cases", problem=True)
        if STACK_TRACE.search(output):
            self.note(
                f"{language}: a stack trace in verify-batch's output: "
                f"{STACK_TRACE.search(output).group(0).strip()[:200]!r}",
                problem=True,
            )
        leaked = leaks(output, self.secrets)
        if leaked:
            self.note(f"{language}: key material in verify-batch's output ({', '.join(leaked)})", problem=True)
        stderr_lines = [line for line in output.splitlines() if line and not line.startswith("{")]
        for line in stderr_lines[:20]:
            self.note(f"{language} said: {line[:300]}")


def load_known(path=KNOWN_DEVIATIONS):
    """{(language, implementation, case)} of the deviations measured before and accepted
    as the library's behaviour (data/conformance/known-deviations.csv)."""
    with open(path, newline="") as handle:
        return {(row["language"], row["implementation"], row["case"]) for row in csv.DictReader(handle)}


POLICY_COLUMNS = result_tables.columns("verify_policy.schema.yaml")
KNOWN_COLUMNS = result_tables.columns("known_deviations.schema.yaml")


def write_table(path, rows, columns=COLUMNS):
    # Every digit: the times and memory are the drivers' figures as they reported them.
    result_tables.write_csv(path, columns, rows, floats=str)


def policy_rows(policy, versions):
    """What each driver's verify checks (its driver.yaml `verify`), one row per policy item."""
    rows = []
    for name, declared in policy.items():
        version = versions[name]
        for item in config_validation.VERIFY_POLICY:
            rows.append(
                {
                    "language": version["language"],
                    "implementation": version["implementation"],
                    "implementation_version": version["implementation_version"],
                    "item": item,
                    "validated": str(item in declared["validates"]).lower(),
                    "reason": declared["lacks"].get(item, ""),
                }
            )
    return rows


def run_job(snake):
    cases = conformance_cases.load_cases(snake.input.cases)
    versions = {
        config_validation.driver_of(path, config_validation.VERSIONS_DIR): json.loads(Path(path).read_text())
        for path in snake.input.versions
    }
    key_dir = Path(snake.input.key_manifest).parent
    drivers = snake.params.drivers
    with open(snake.log[0], "w") as log:
        suite = Conformance(cases, key_dir, versions, load_known(snake.input.known), snake.params.case_timeout, log)
        with ThreadPoolExecutor(snake.threads) as pool:
            jobs = [pool.submit(suite.run_language, language, driver) for language, driver in drivers.items()]
            rows = [row for job in jobs for row in job.result()]
        write_table(snake.output.table, rows)
        write_table(snake.output.policy, policy_rows(snake.params.policy, versions), POLICY_COLUMNS)
        for name in drivers:
            library = (versions[name]["language"], versions[name]["implementation"])
            must = [
                row
                for row in rows
                if (row["language"], row["implementation"]) == library and row["expected"] == "must_reject"
            ]
            rejected = sum(row["verdict"] == "as_required" for row in must)
            suite.note(f"{'/'.join(library)}: rejects {rejected} of {len(must)} must-reject cases")
    if suite.problems:
        raise RuntimeError(
            f"the conformance suite failed ({len(suite.problems)} problems, see {snake.log[0]}; "
            f"the table is in {snake.output.table}): " + "; ".join(suite.problems[:3])
        )


def record_known(conformance_csv, path=KNOWN_DEVIATIONS, measured=None):
    """Rewrite known-deviations.csv from a run's conformance.csv: every deviation it holds,
    with the library's version and the day (the step that makes a deviation known, e.g.
    when a library is added; see docs/adding-a-language.md)."""
    measured = measured or time.strftime("%Y-%m-%d")
    with open(conformance_csv, newline="") as handle:
        rows = list(csv.DictReader(handle))
    libraries = {(row["language"], row["implementation"]) for row in rows}
    with open(path, newline="") as handle:  # the libraries this run did not check stay as they were
        kept = [row for row in csv.DictReader(handle) if (row["language"], row["implementation"]) not in libraries]
    recorded = [
        {
            "language": row["language"],
            "implementation": row["implementation"],
            "case": row["case"],
            "observed": row["observed"],
            "measured": f"{row['implementation_version']} on {measured}",
        }
        for row in rows
        if row["verdict"] == "deviation"
    ]
    rows = sorted(kept + recorded, key=lambda r: (r["language"], r["implementation"], r["case"]))
    result_tables.write_csv(path, KNOWN_COLUMNS, rows)
    return len(recorded)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(
        description="record a run's deviations as known (data/conformance/known-deviations.csv)"
    )
    parser.add_argument("conformance_csv", help="a run's results/verify/conformance.csv")
    args = parser.parse_args()
    print(f"{record_known(args.conformance_csv)} deviations written to {KNOWN_DEVIATIONS}")
