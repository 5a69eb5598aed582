"""./jwtbench new-language: the three folders from docs/language-template/, nothing else."""

import subprocess

import pytest
from conftest import REPO, SCRIPTS

from jwtbench import config_validation
from jwtbench.rules import scaffold_language


def test_scaffold_writes_the_three_folders_and_they_fail_until_written(tmp_path):
    written = scaffold_language.scaffold("zig", repo=tmp_path)
    relative = sorted(str(path.relative_to(tmp_path)) for path in written)
    assert relative == [
        "containers/zig/Dockerfile",
        "envs/zig/install",
        "workflow/scripts/zig/README.md",
        "workflow/scripts/zig/driver.yaml",
        "workflow/scripts/zig/run",
    ]
    for path in written:
        text = path.read_text()
        assert "@LANGUAGE@" not in text and "zig" in text, path
    assert config_validation.driver_manifest(tmp_path / "workflow" / "scripts", "zig")["jws"] is True
    # A skeleton never passes for a driver: each fails, naming what is not written yet.
    shim = subprocess.run(
        [str(tmp_path / "workflow/scripts/zig/run"), "versions"],
        capture_output=True,
        text=True,
        env={"JWTBENCH_ENVS": str(tmp_path / ".envs"), "PATH": "/usr/bin:/bin"},
    )
    assert shim.returncode == 2 and "envs/zig/install" in shim.stderr
    install = subprocess.run(
        [str(tmp_path / "envs/zig/install"), str(tmp_path / ".envs/zig")], capture_output=True, text=True
    )
    assert install.returncode == 2 and "envs/zig/install is not written yet" in install.stderr
    assert not (tmp_path / ".envs/zig/.installed").exists()


@pytest.mark.parametrize("name", ["Zig", "9lives", "go-lang", "", "a/b"])
def test_a_name_that_is_not_a_lowercase_identifier_is_refused(tmp_path, name):
    with pytest.raises(scaffold_language.ScaffoldError, match="lowercase identifier"):
        scaffold_language.scaffold(name, repo=tmp_path)
    assert not any(tmp_path.iterdir())


def test_an_existing_language_is_refused_and_nothing_is_touched(tmp_path):
    (tmp_path / "envs" / "zig").mkdir(parents=True)
    with pytest.raises(scaffold_language.ScaffoldError, match="exists already: envs/zig"):
        scaffold_language.scaffold("zig", repo=tmp_path)
    assert not (tmp_path / "containers").exists() and not (tmp_path / "workflow").exists()
    for language in config_validation.driver_languages(SCRIPTS):
        with pytest.raises(scaffold_language.ScaffoldError, match="exists already"):
            scaffold_language.scaffold(language, repo=REPO)


def test_the_command_line_names_the_next_steps(tmp_path):
    result = subprocess.run([str(REPO / "jwtbench"), "new-language", "Bad"], capture_output=True, text=True)
    assert result.returncode == 2 and "lowercase identifier" in result.stderr
