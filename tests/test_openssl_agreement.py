"""benchmarks/openssl_agreement.py: which cells it compares and how it judges them (the
timing itself is a benchmark, run by hand: docs/methods.md, on benchmarks/openssl_agreement.py)."""

import openssl_agreement as agreement
import speed_output
from conftest import REPO

DATA = REPO / "tests" / "data" / "openssl"


def plain_outputs():
    """Captured human output of the two selections the plain run makes (OpenSSL 3.0)."""
    names = ("sha256.human.txt", "rsa2048-ecdsap256-ed25519.human.txt", "aes-256-gcm.human.txt")
    return [speed_output.parse((DATA / name).read_text()) for name in names]


def keys():
    return [
        agreement.cell_key(c["operation"], c["algorithm"], c["key_bits"], c["input"], c["message_bytes"])
        for c in agreement.spec_cells()
    ]


def test_every_cell_of_the_spec_has_a_plain_figure():
    plain = plain_outputs()
    for key in keys():
        assert any(agreement.plain_figure(key, output) for output in plain), key
    assert len(keys()) == 12  # SHA-256 and AES-256-GCM at five sizes, RSA-2048 sign and verify


def rounds(scale_of, noise=(1.0,)):
    """One round per noise factor; the driver's figures are the plain figures times
    scale_of(key) times that round's factor."""
    plain = plain_outputs()
    base = {key: next(v for o in plain if (v := agreement.plain_figure(key, o))) for key in keys()}
    return [({key: base[key] * scale_of(key) * factor for key in keys()}, plain) for factor in noise]


def test_equal_figures_agree():
    lines, verdicts = agreement.paired_report(rounds(lambda key: 1.0, noise=(1.0, 1.0)), 0.10)
    assert verdicts == [agreement.AGREES] * 12
    assert all(line.endswith("agrees") for line in lines[1:])


def test_a_cell_off_by_more_than_the_tolerance_disagrees_and_is_named():
    slow = keys()[3]
    lines, verdicts = agreement.paired_report(rounds(lambda key: 1.25 if key == slow else 1.0, (1.0, 1.0)), 0.10)
    assert verdicts.count(agreement.DISAGREES) == 1 and verdicts.count(agreement.AGREES) == 11
    flagged = [line for line in lines[1:] if "DISAGREES" in line]
    assert len(flagged) == 1 and f"{slow[0]} {slow[1]}-{slow[2]} {slow[3]}" in flagged[0] and "1.250" in flagged[0]


def test_rounds_too_noisy_to_tell_are_inconclusive_and_more_of_them_decide():
    """Per-round ratios of 0.8-1.2 around 1.0: a few rounds cannot place the ratio's CI within
    ±10%; many rounds of the same spread can."""
    spread = (0.8, 1.2, 0.9, 1.1, 1.0)
    _, few = agreement.paired_report(rounds(lambda key: 1.0, spread), 0.10)
    assert set(few) == {agreement.INCONCLUSIVE}
    _, many = agreement.paired_report(rounds(lambda key: 1.0, spread * 12 + (1.0,) * 20), 0.10)
    assert set(many) == {agreement.AGREES}
    _, off = agreement.paired_report(rounds(lambda key: 1.5, spread * 4), 0.10)
    assert set(off) == {agreement.DISAGREES}


def test_the_ratio_ci_resamples_whole_rounds():
    """Rounds where the host was slow for both sides alike: the paired CI stays at 1."""
    pairs = [(100.0 * f, 100.0 * f) for f in (0.6, 1.0, 1.7, 0.8, 1.3)]
    ratio, low, high = agreement.paired_ratio_ci(pairs)
    assert ratio == low == high == 1.0


def test_a_cell_missing_from_every_round_is_not_compared():
    plain = plain_outputs()
    missing = keys()[0]
    figures = {key: 100.0 for key in keys() if key != missing}
    lines, verdicts = agreement.paired_report([(figures, plain)], 10.0)
    assert len(verdicts) == 11
    assert any("not compared" in line and missing[1] in line for line in lines)
