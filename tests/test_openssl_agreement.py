"""benchmarks/openssl_agreement.py: which cells it compares and how it judges them (the
timing itself is a benchmark, run by hand: README "Seed 003")."""

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "workflow" / "scripts" / "openssl"))

import openssl_agreement as agreement  # noqa: E402
import speed_output  # noqa: E402

DATA = REPO / "tests" / "data" / "openssl"


def plain_outputs():
    """Captured human output of the two selections the plain run makes (OpenSSL 3.0)."""
    names = ("sha256.human.txt", "rsa2048-ecdsap256-ed25519.human.txt", "aes-256-gcm.human.txt")
    return [speed_output.parse((DATA / name).read_text()) for name in names]


def keys():
    return [agreement.cell_key(c["operation"], c["algorithm"], c["key_bits"], c["input"], c["message_bytes"])
            for c in agreement.spec_cells()]  # fmt: skip


def test_every_cell_of_the_spec_has_a_plain_figure():
    plain = plain_outputs()
    for key in keys():
        assert any(agreement.plain_figure(key, output) for output in plain), key
    assert len(keys()) == 12  # SHA-256 and AES-256-GCM at five sizes, RSA-2048 sign and verify


def rounds(scale_of):
    """Two rounds whose driver figures are the plain figures times scale_of(key)."""
    plain = plain_outputs()
    figures = {key: next(v for o in plain if (v := agreement.plain_figure(key, o))) * scale_of(key) for key in keys()}
    return [(figures, plain), (figures, plain)]


def test_equal_figures_agree():
    lines, outside, compared = agreement.paired_report(rounds(lambda key: 1.0), 0.10)
    assert (outside, compared) == (False, 12)
    assert all(line.endswith("OK") for line in lines[1:])


def test_a_cell_off_by_more_than_the_tolerance_is_outside_and_named():
    slow = keys()[3]
    lines, outside, compared = agreement.paired_report(rounds(lambda key: 1.25 if key == slow else 1.0), 0.10)
    assert outside and compared == 12
    flagged = [line for line in lines[1:] if "OUTSIDE" in line]
    assert len(flagged) == 1 and f"{slow[0]} {slow[1]}-{slow[2]} {slow[3]}" in flagged[0] and "1.250" in flagged[0]


def test_a_cell_missing_from_every_round_is_not_compared():
    plain = plain_outputs()
    missing = keys()[0]
    figures = {key: 100.0 for key in keys() if key != missing}
    lines, _, compared = agreement.paired_report([(figures, plain)], 10.0)
    assert compared == 11
    assert any("not compared" in line and missing[1] in line for line in lines)
