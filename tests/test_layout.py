"""The pipeline's Python is grouped by role (workflow/scripts/README.md): jwtbench/ the shared
library, rules/ the rules' scripts, seeds/ the seeds' analyses. Imports go one way only, so
the library can be read (and reused) without the steps that use it."""

import ast

import pytest
from conftest import SCRIPTS

PACKAGES = ("jwtbench", "rules", "seeds")
# What each package may import from the others.
ALLOWED = {"jwtbench": {"jwtbench"}, "seeds": {"jwtbench", "seeds"}, "rules": {"jwtbench", "rules", "seeds"}}


def imported_packages(path):
    """{(package, line)} of the project packages a module imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {(name.split(".")[0], node.lineno) for name in names if name.split(".")[0] in PACKAGES}
    return found


def modules():
    return sorted(path for package in PACKAGES for path in (SCRIPTS / package).glob("*.py"))


def test_no_pipeline_module_is_left_beside_the_drivers():
    assert sorted(path.name for path in SCRIPTS.glob("*.py")) == []
    assert all((SCRIPTS / package / "__init__.py").is_file() for package in PACKAGES)


@pytest.mark.parametrize("path", modules(), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_imports_go_from_the_steps_to_the_library_only(path):
    package = path.parent.name
    wrong = sorted(
        f"{path.relative_to(SCRIPTS)}:{line} imports {name}"
        for name, line in imported_packages(path)
        if name not in ALLOWED[package]
    )
    assert not wrong, wrong


def test_no_library_module_is_run_by_a_rule():
    """A rule's run: block calls a module's run_job: such a module belongs in rules/ or seeds/."""
    run_by_rules = [path.name for path in (SCRIPTS / "jwtbench").glob("*.py") if "def run_job(" in path.read_text()]
    assert run_by_rules == []


def test_no_dockerfile_repeats_six_lines_of_another():
    """The images share their runtime stage (containers/runtime/) instead of copying it: no
    run of six lines of one Dockerfile stands again in another."""

    def windows(path):
        lines = [line.strip() for line in path.read_text().splitlines()]
        lines = [line for line in lines if line and not line.startswith("#")]
        return {tuple(lines[i : i + 6]) for i in range(len(lines) - 5)}

    dockerfiles = sorted((SCRIPTS.parents[1] / "containers").glob("*/Dockerfile"))
    assert len(dockerfiles) >= 7
    seen = {}
    for path in dockerfiles:
        for window in windows(path):
            other = seen.setdefault(window, path)
            assert other == path, f"{path.parent.name} repeats {other.parent.name}: {window}"


def test_the_readme_stays_a_newcomers_guide():
    """README.md stays under 150 lines (issue 43): dated measurements live in
    docs/measurements.md, which the README points to."""
    readme = (SCRIPTS.parents[1] / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    assert "docs/measurements.md" in readme
