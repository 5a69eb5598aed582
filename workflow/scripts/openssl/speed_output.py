"""Parse what `openssl speed` prints, human-readable or `-mr` (machine-readable).

Standard library only: the openssl image runs it on Debian's python3. Nothing here runs
openssl, so every format is unit-tested on captured output (tests/data/openssl/).

What is read:

- counts, one per timed run: how many operations openssl did in how many seconds
  - human, symmetric: `Doing sha256 for 3s on 256 size blocks: 10630596 sha256's in 3.00s`
  - human, public key: `Doing 2048 bits private rsa's for 10s: 5771 2048 bits private RSA's in 9.96s`
    (LibreSSL and OpenSSL 1.x write `bit`, OpenSSL 3 `bits`; ECDSA and EdDSA say `sign`
    and `verify` where RSA says `private` and `public`)
  - `-mr`, symmetric: `+DT:sha256:1:256` (name, seconds asked, block size), then
    `+R:2311940:sha256:1.000000` (count, name, seconds taken)
  - `-mr`, public key: `+DTP:2048:private:rsa:1` (bits, operation, name, seconds asked),
    then `+R1:1069:2048:1.00` (`+R<n>:count:bits[:name]:seconds`)
- the summary tables
  - human: `type 16 bytes 64 bytes ...` with rows in 1000s of bytes per second (`908076.48k`),
    and `sign verify sign/s verify/s` with rows such as `rsa 2048 bits 0.001725s 0.000078s 579.7 12893.2`
  - `-mr`: `+H:16:64:...` and `+F:<i>:<name>:<bytes/s>...`; `+F2` (rsa), `+F4` (ecdsa),
    `+F6` (EdDSA, with its curve name) `:<i>:<bits>[:name]:<sign/s>:<verify/s>`
- the version line: `version: 3.0.19` (OpenSSL 3) or `LibreSSL 2.8.3` / `OpenSSL 1.1.1w ...`

Public-key operations are named `sign` and `verify` whatever openssl calls them (RSA's
`private` is the signature, `public` the verification).
"""

import re
from dataclasses import dataclass, field

PKEY_OPERATIONS = {"private": "sign", "public": "verify", "sign": "sign", "verify": "verify"}

SYMMETRIC_DOING = re.compile(
    r"^Doing (?P<name>.+?) for (?P<asked>\d+)s on (?P<size>\d+) size blocks?: "
    r"(?P<count>\d+) (?P=name)'s in (?P<seconds>[\d.]+)s\s*$"
)
PKEY_DOING = re.compile(
    r"^Doing (?P<bits>\d+) bits? (?P<operation>private|public|sign|verify) (?P<name>\S+?)'s "
    r"for (?P<asked>\d+)s: (?P<count>\d+) \d+ bits? .*? in (?P<seconds>[\d.]+)s\s*$"
)
BLOCK_TABLE_HEADER = re.compile(r"^type\s+(?P<sizes>(\d+ bytes\s*)+)$")
PKEY_TABLE_HEADER = re.compile(r"^\s*sign\s+verify\s+sign/s\s+verify/s\s*$")
PKEY_TABLE_ROW = re.compile(
    r"^\s*(?P<label>.+?)\s+(?P<sign_seconds>[\d.]+)s\s+(?P<verify_seconds>[\d.]+)s"
    r"\s+(?P<sign_rate>[\d.]+)\s+(?P<verify_rate>[\d.]+)\s*$"
)
VERSION_LINE = re.compile(r"^(?:version: (?P<number>\S+)|(?P<library>(?:OpenSSL|LibreSSL) \S+.*))$")


class SpeedOutputError(ValueError):
    """A line that looks like openssl speed output but does not parse."""


@dataclass(frozen=True)
class Count:
    """One timed run: `operations` of `algorithm` done in `seconds`.

    `algorithm` is openssl's own name (`sha256`, `AES-256-GCM`, `hmac(sha256)`, `rsa`,
    `ecdsa`, `Ed25519`); `operation` is `block` for hashes, MACs and ciphers, else `sign`
    or `verify`; `size` is the block size in bytes, or the key's bits as openssl prints
    them (253 for Ed25519).
    """

    algorithm: str
    operation: str
    size: int
    operations: int
    seconds: float

    @property
    def ns_per_operation(self):
        return self.seconds * 1e9 / self.operations


@dataclass(frozen=True)
class PkeyRate:
    """One row of the public-key summary table (per second, and seconds per operation)."""

    sign_per_second: float
    verify_per_second: float
    sign_seconds: float = None  # human table only
    verify_seconds: float = None


@dataclass
class SpeedOutput:
    counts: list = field(default_factory=list)
    # (algorithm, block bytes) -> bytes per second, from the summary table
    block_rates: dict = field(default_factory=dict)
    # (algorithm, bits) -> PkeyRate
    pkey_rates: dict = field(default_factory=dict)
    version: str = None

    def count(self, algorithm, operation, size):
        """The Count for one algorithm, operation and size; None when openssl did not report it."""
        for count in self.counts:
            if (count.algorithm, count.operation, count.size) == (algorithm, operation, size):
                return count
        return None


def parse(text):
    """A SpeedOutput from openssl speed's combined stdout and stderr (either format)."""
    output = SpeedOutput()
    pending_block = None  # the last +DT: (name, size)
    pending_pkey = None  # the last +DTP: (bits, operation, name)
    block_sizes = None  # sizes of the human block table's columns
    in_pkey_table = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        try:
            if line.startswith("+DT:"):
                name, _asked, size = split_fields(line, 3)
                pending_block = (name, int(size))
            elif line.startswith("+DTP:"):
                bits, operation, name, _asked = split_fields(line, 4)
                pending_pkey = (int(bits), PKEY_OPERATIONS[operation], name)
            elif line.startswith("+R:"):
                output.counts.append(machine_block_count(line, pending_block))
                pending_block = None
            elif re.match(r"^\+R\d+:", line):
                output.counts.append(machine_pkey_count(line, pending_pkey))
                pending_pkey = None
            elif line.startswith("+F:"):
                read_machine_block_rates(line, text, output)
            elif re.match(r"^\+F\d+:", line):
                read_machine_pkey_rates(line, output)
            elif match := SYMMETRIC_DOING.match(line):
                output.counts.append(
                    Count(match["name"], "block", int(match["size"]), int(match["count"]), float(match["seconds"]))
                )
            elif match := PKEY_DOING.match(line):
                output.counts.append(
                    Count(
                        match["name"],
                        PKEY_OPERATIONS[match["operation"]],
                        int(match["bits"]),
                        int(match["count"]),
                        float(match["seconds"]),
                    )
                )
            elif line.startswith("Doing "):
                raise SpeedOutputError("a 'Doing' line in no known form")
            elif match := BLOCK_TABLE_HEADER.match(line):
                block_sizes = [int(size) for size in re.findall(r"(\d+) bytes", match["sizes"])]
                in_pkey_table = False
            elif PKEY_TABLE_HEADER.match(line):
                in_pkey_table, block_sizes = True, None
            elif in_pkey_table and (match := PKEY_TABLE_ROW.match(line)):
                algorithm, bits = pkey_label(match["label"])
                output.pkey_rates[(algorithm, bits)] = PkeyRate(
                    float(match["sign_rate"]),
                    float(match["verify_rate"]),
                    float(match["sign_seconds"]),
                    float(match["verify_seconds"]),
                )
            elif block_sizes and re.search(r"\s[\d.]+k?$", line):  # a row ends in a figure
                read_human_block_row(line, block_sizes, output)
            elif match := VERSION_LINE.match(line):
                output.version = match["number"] or match["library"]
        except (SpeedOutputError, ValueError, KeyError) as error:
            raise SpeedOutputError(f"line {number}: {line!r}: {error}") from None
    return output


def split_fields(line, expected):
    fields = line.split(":")[1:]
    if len(fields) != expected:
        raise SpeedOutputError(f"{len(fields)} fields, expected {expected}")
    return fields


def machine_block_count(line, pending):
    count, name, seconds = split_fields(line, 3)
    if pending is None or pending[0] != name:
        raise SpeedOutputError("a +R line without its +DT line")
    return Count(name, "block", pending[1], int(count), float(seconds))


def machine_pkey_count(line, pending):
    fields = line.split(":")[1:]
    if len(fields) not in (3, 4):  # count:bits:seconds, or count:bits:name:seconds (EdDSA)
        raise SpeedOutputError(f"{len(fields)} fields, expected 3 or 4")
    count, bits, seconds = int(fields[0]), int(fields[1]), float(fields[-1])
    if pending is None or pending[0] != bits:
        raise SpeedOutputError("a +R<n> line without its +DTP line")
    _bits, operation, name = pending
    return Count(name, operation, bits, count, seconds)


def read_machine_block_rates(line, text, output):
    sizes_line = next((other for other in text.splitlines() if other.startswith("+H:")), None)
    if sizes_line is None:
        raise SpeedOutputError("a +F line without a +H line")
    sizes = [int(size) for size in sizes_line.rstrip().split(":")[1:]]
    fields = line.split(":")[1:]
    name, rates = fields[1], fields[2:]
    if len(rates) != len(sizes):
        raise SpeedOutputError(f"{len(rates)} rates for {len(sizes)} sizes")
    for size, rate in zip(sizes, rates):
        output.block_rates[(name, size)] = float(rate)


MACHINE_PKEY_TABLES = {"+F2": "rsa", "+F3": "dsa", "+F4": "ecdsa"}


def read_machine_pkey_rates(line, output):
    fields = line.split(":")
    tag, rest = fields[0], fields[1:]
    if tag in MACHINE_PKEY_TABLES and len(rest) == 4:
        _index, bits, sign_rate, verify_rate = rest
        name = MACHINE_PKEY_TABLES[tag]
    elif tag == "+F6" and len(rest) == 5:  # EdDSA: index, bits, curve name, sign/s, verify/s
        _index, bits, name, sign_rate, verify_rate = rest
    else:
        return  # key exchange (+F5, +F7...) and others: not ours
    output.pkey_rates[(name, int(bits))] = PkeyRate(float(sign_rate), float(verify_rate))


def read_human_block_row(line, sizes, output):
    tokens = line.split()
    values, name = tokens[-len(sizes) :], " ".join(tokens[: -len(sizes)])
    if not name or not all(value.endswith("k") for value in values):
        raise SpeedOutputError("a block table row in no known form")
    for size, value in zip(sizes, values):
        output.block_rates[(name, size)] = float(value[:-1]) * 1000  # the table is in 1000s of bytes/s


def pkey_label(label):
    """(algorithm, bits) from a public-key table row's label: `rsa 2048 bits`,
    `256 bits ecdsa (nistp256)`, `253 bits EdDSA (Ed25519)` (named by the curve, as its
    Doing lines are)."""
    bits = re.search(r"(\d+) bits?", label)
    curve = re.search(r"\((\w+)\)", label)
    words = re.sub(r"\(.*?\)|\d+ bits?", " ", label).split()
    if bits is None or len(words) != 1:
        raise SpeedOutputError(f"public-key table label {label!r} in no known form")
    algorithm = curve[1] if words[0] == "EdDSA" and curve else words[0]
    return algorithm, int(bits[1])
