"""The learner's front door stays clean: README.md is a front page (at most 200
lines, none of 120 characters or more outside code blocks), and neither it,
nor the pages of docs/, nor the executed notebooks' stored outputs carry a
machine's paths, terminal colour codes or internal issue numbers (nor do the
model cards, which ``mockgo models NAME`` prints); every figure
the README quotes is one that docs/results.md or a model card measured."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
CARDS = sorted((ROOT / "mockgo" / "pretrained").glob("*.json"))
# The committed match records (each folder's match.json, games.jsonl and SGF files).
MATCHES = sorted(p for p in (ROOT / "docs" / "matches").iterdir() if p.is_dir())

# A path on one machine: a home, a scratch folder, the project's own work tree.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|home|tmp|Users|root|mnt|scratch|var/folders)/")
ANSI = re.compile(r"\x1b\[")
# "issue 12", "issues 20 and 21", "#12" as a reference (not "##" headings, not
# "#000000" colours, not a URL's "#anchor").
ISSUE = re.compile(r"(?i)\bissues? #?\d+|(?<![\w#&/])#\d+\b(?![0-9a-f]{2})")


def problems(text):
    """What is wrong with one text: a list of the offending snippets."""
    found = []
    for name, pattern in (("machine path", MACHINE_PATH), ("ANSI code", ANSI),
                          ("issue number", ISSUE)):
        for m in pattern.finditer(text):
            found.append(f"{name}: {text[max(0, m.start() - 30):m.end() + 30]!r}")
    return found


def test_the_checks_catch_what_they_look_for():
    assert problems("folder /work/nb03-run/runs") and problems("see /home/me/x")
    assert problems("at /tmp/tiny") and problems("/Users/me/go")
    assert problems("\x1b[1mModel\x1b[0m")
    assert problems("as issue 20 asks") and problems("fixed in #37") and problems("Issues 20 and 21")
    assert not problems("runs/01_supervised/full, ../shared/data/kgs, /path/to/mockgo, /usr/games/gnugo")
    assert not problems("## Results\n[the ladders](results.md#the-ladders) colour #1f77b4, C# 12")


def stored_outputs(path):
    """An executed notebook's stored outputs and its markdown, as text."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    texts = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            texts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            texts.append(json.dumps({k: v for k, v in output.items() if k != "data"},
                                    ensure_ascii=False))
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    texts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(texts).replace("\\u001b", "\x1b")


def readable_text(path):
    """What a reader sees of ``path``: a notebook's stored outputs and
    markdown, a match folder's files one after another (a ladder's folder:
    each of its matches' too), else the file."""
    if path.is_dir():
        return "\n".join(f.read_text(encoding="utf-8") for f in sorted(path.rglob("*")) if f.is_file())
    return stored_outputs(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", [README, *PAGES, *NOTEBOOKS, *CARDS, *MATCHES],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_machine_paths_ansi_codes_or_issue_numbers(path):
    text = readable_text(path)
    assert problems(text) == [], f"{path.relative_to(ROOT)}: " + "; ".join(problems(text)[:5])


# A tqdm line stopped short of its total ("98% 39/40 [00:41<00:00]"): a bar
# stored with a label it no longer had when the cell ended.
PROGRESS = re.compile(r"(?<![\d/])(\d+)/(\d+) \[")


def frozen_bars(text):
    return [m.group() for m in PROGRESS.finditer(text) if m.group(1) != m.group(2)]


def test_the_frozen_bar_check_catches_what_it_looks_for():
    assert frozen_bars("match:  98% 39/40 [00:41<00:00,  7.64it/s]") == ["39/40 ["]
    assert frozen_bars("games: 100% 40/40 [00:41<00:00]\nepoch 3/10 [") == ["3/10 ["]
    assert frozen_bars("self-play: 100% 256/256 [01:43<00:00]; 2026/11/27 [") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_progress_bar_is_stored_unfinished(path):
    from test_notebooks import STALE_DOCS   # a stale copy is re-executed, not checked
    if path.stem in STALE_DOCS:
        pytest.skip(f"{path.name} is re-executed next ({STALE_DOCS[path.stem]})")
    assert frozen_bars(stored_outputs(path)) == []


def prose_lines():
    """README's lines outside ``` code blocks, with their numbers."""
    inside = False
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            inside = not inside
        elif not inside:
            yield number, line


def test_the_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the rest belongs in docs/"
    long = [f"line {n}: {len(line)} characters" for n, line in prose_lines() if len(line) >= 120]
    assert long == []


# Figures a reader would take as measured: percentages, "N of M" games, Elo.
FIGURE = re.compile(r"\d[\d,.]*%|\b\d[\d,]* of \d[\d,]*\b|[+-]\d+ Elo|Elo [+-]\d+")


def readme_figures():
    text = " ".join(line for _, line in prose_lines())
    return sorted(set(FIGURE.findall(text)))


def test_every_figure_the_readme_quotes_is_measured_in_results_or_a_card():
    results = " ".join((ROOT / "docs" / "results.md").read_text(encoding="utf-8").split())
    cards = " ".join(card.read_text(encoding="utf-8") for card in CARDS)
    figures = readme_figures()
    assert figures, "the README quotes no figure: the pattern no longer finds them"
    missing = [f for f in figures if f not in results and f not in cards]
    assert missing == [], f"README figures found in neither docs/results.md nor a model card: {missing}"


def test_the_license_is_named_where_a_reader_looks():
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert 'license = "MIT"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "(LICENSE)" in README.read_text(encoding="utf-8")


def test_help_mockgo_maps_every_subpackage_and_notebook():
    import mockgo
    doc = mockgo.__doc__
    subpackages = sorted(p.parent.name for p in (ROOT / "mockgo").glob("*/__init__.py"))
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert len(subpackages) >= 10 and len(notebooks) == 5
    assert [name for name in subpackages if f"mockgo.{name} " not in doc] == []
    assert [name for name in notebooks if name not in doc] == []
