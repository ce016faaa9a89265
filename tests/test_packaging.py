"""pyproject.toml and environment.yml must list the same dependencies.

The conda route installs from environment.yml and the pip route from
pyproject.toml; if the two drift apart, learners on one route get different
versions from those the notebooks were checked with.

environment.yml is read with a small line parser rather than PyYAML: PyYAML is
only a transitive dependency here, and this test should not break when some
other package stops pulling it in.
"""

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# name, optional [extras], then the version specifier (possibly empty).
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def normalise_name(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_requirement(text):
    """Split 'Name[extra] >= 1, <2' into ('name', '<2,>=1')."""
    match = _REQUIREMENT.match(text.strip())
    assert match, f"cannot parse requirement {text!r}"
    name, _extras, spec = match.groups()
    # Order and spacing of clauses carry no meaning, so compare a canonical form.
    clauses = sorted(c.strip().replace(" ", "") for c in spec.split(",") if c.strip())
    return normalise_name(name), ",".join(clauses)


def as_dict(requirements, source):
    result = {}
    for text in requirements:
        name, spec = parse_requirement(text)
        assert name not in result, f"{source} lists {name} twice"
        result[name] = spec
    return result


def pyproject_requirements():
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return project["dependencies"] + project["optional-dependencies"]["dev"]


def environment_pip_requirements():
    """The items of the `- pip:` list in environment.yml."""
    items = []
    pip_indent = None  # indentation of the `- pip:` line once seen
    for line in (ROOT / "environment.yml").read_text().splitlines():
        stripped = line.split("#", 1)[0].rstrip()
        if not stripped.strip():
            continue
        indent = len(stripped) - len(stripped.lstrip())
        if pip_indent is None:
            if re.fullmatch(r"\s*-\s*pip\s*:", stripped):
                pip_indent = indent
            continue
        if indent <= pip_indent:
            break  # the pip list has ended
        item = stripped.strip()
        assert item.startswith("- "), f"unexpected line in pip list: {line!r}"
        item = item[2:].strip().strip("'\"")
        if item.startswith("-e ") or item.startswith("--"):
            continue  # pip options and the editable install are not dependencies
        items.append(item)
    assert pip_indent is not None, "environment.yml has no '- pip:' section"
    return items


def test_environment_matches_pyproject():
    project = as_dict(pyproject_requirements(), "pyproject.toml")
    conda = as_dict(environment_pip_requirements(), "environment.yml")
    differences = []
    for name in sorted(project.keys() | conda.keys()):
        if name not in conda:
            differences.append(f"{name}: in pyproject.toml ({project[name] or 'any version'}) "
                               "but missing from environment.yml")
        elif name not in project:
            differences.append(f"{name}: in environment.yml ({conda[name] or 'any version'}) "
                               "but missing from pyproject.toml")
        elif project[name] != conda[name]:
            differences.append(f"{name}: pyproject.toml has {project[name]!r}, "
                               f"environment.yml has {conda[name]!r}")
    assert not differences, "dependency lists differ:\n  " + "\n  ".join(differences)


@pytest.mark.parametrize("extra", ["cluster", "docs"])
def test_dev_extra_installs_the_cluster_and_docs_extras(extra):
    """CI installs the dev extra: it must bring Ray and the book's tools, so
    the cluster tests and the book's run."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    dev = as_dict(extras["dev"], "the dev extra")
    missing = [text for text in extras[extra]
               if parse_requirement(text)[0] not in dev
               or dev[parse_requirement(text)[0]] != parse_requirement(text)[1]]
    assert not missing, f"the dev extra lacks the {extra} extra's {missing}"


def test_environment_python_satisfies_requires_python():
    text = (ROOT / "environment.yml").read_text()
    match = re.search(r"^\s*-\s*python\s*=\s*(\d+)\.(\d+)", text, re.MULTILINE)
    assert match, "environment.yml does not pin python=X.Y"
    with open(ROOT / "pyproject.toml", "rb") as f:
        requires = tomllib.load(f)["project"]["requires-python"]
    minimum = re.fullmatch(r">=\s*(\d+)\.(\d+)", requires)
    assert minimum, f"expected requires-python of the form '>=X.Y', got {requires!r}"
    conda_python = tuple(map(int, match.groups()))
    assert conda_python >= tuple(map(int, minimum.groups())), (
        f"environment.yml pins python {'.'.join(match.groups())}, "
        f"but pyproject.toml requires {requires}")
