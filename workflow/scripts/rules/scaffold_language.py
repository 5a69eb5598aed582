#!/usr/bin/env python3
"""Create the three folders of a new language from docs/language-template/.

    ./jwtbench new-language NAME      (or: python workflow/scripts/rules/scaffold_language.py NAME)

Writes containers/NAME/Dockerfile, envs/NAME/install and workflow/scripts/NAME/{run,
driver.yaml,README.md}, with NAME in place of the template's @LANGUAGE@. Every file is a
skeleton that fails with a message naming itself until it is written, so nothing half-made
is ever timed. Refuses a name that is not a lowercase identifier, or one that already has
any of the three folders. Then follow docs/adding-a-language.md.
"""

import re
import shutil
import stat
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
TEMPLATE = REPO / "docs" / "language-template"
# Template folder -> where it goes for language NAME.
PLACES = {"containers": "containers/{}", "envs": "envs/{}", "scripts": "workflow/scripts/{}"}
PLACEHOLDER = "@LANGUAGE@"
NAME = re.compile(r"[a-z][a-z0-9_]{0,30}")


class ScaffoldError(Exception):
    pass


def scaffold(name, repo=REPO, template=TEMPLATE):
    """Create the language's folders under `repo`; the list of files written."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"language name {name!r}: use a lowercase identifier (a-z, 0-9, _), e.g. 'go'")
    targets = {source: repo / place.format(name) for source, place in PLACES.items()}
    taken = [str(path.relative_to(repo)) for path in targets.values() if path.exists()]
    if taken:
        raise ScaffoldError(f"language {name!r} exists already: {', '.join(taken)}")
    written = []
    for source, target in targets.items():
        for path in sorted((template / source).rglob("*")):
            if path.is_dir():
                continue
            out = target / path.relative_to(template / source)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(path.read_text().replace(PLACEHOLDER, name))
            shutil.copymode(path, out)
            written.append(out)
    return written


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: scaffold_language.py NAME", file=sys.stderr)
        return 2
    name = argv[0]
    try:
        written = scaffold(name)
    except ScaffoldError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path in written:
        executable = " (executable)" if path.stat().st_mode & stat.S_IXUSR else ""
        print(f"created {path.relative_to(REPO)}{executable}")
    print(
        f"\nnext: write them (every TODO({name})), add {name} to `languages:` in config/config.yaml, "
        f"and check with: .venv/bin/pytest tests/test_contract.py -k {name}  (docs/adding-a-language.md)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
