"""What an executed notebook keeps when ``make notebooks``, ``make full`` or
``make docs`` writes it: nbconvert preprocessors that leave outputs a reader
can use on any machine.

- :class:`DropNativeLogLines` drops the native start-up lines TensorFlow's
  C++ runtime prints to stderr. Those lines ("oneDNN custom operations are
  on", "Could not find cuda drivers", "failed call to cuInit", ...) are
  written by TensorFlow's C++ logging before Python's logging or absl's
  exist, so neither ``TF_CPP_MIN_LOG_LEVEL`` nor ``absl.logging`` silences
  them (measured with TensorFlow 2.21 at levels 2 and 3). They say nothing
  about the notebook, and in ``docs/notebooks/`` they would sit in the first
  cell that imports Keras, with a date and process id that change every run.
  It removes those lines, known by the source files that print them
  (:func:`mockgo.native_log.is_native_log_line`), from stderr stream
  outputs; every other line (TensorFlow's warnings later in a run included),
  and every stdout output, is kept as it was.
- :class:`CleanOutputs` makes the outputs read the same wherever the
  notebook ran (:func:`clean_text`): paths are written relative to the
  repository (``runs/01_supervised/full/policy.keras``, not the folder the
  run happened to be in), terminal colour codes (Keras's progress lines and
  model summaries, IPython's tracebacks) are removed, and a line redrawn
  with carriage returns keeps its last state only. A progress bar drawn as a
  widget (``tqdm.auto`` in Jupyter) is stored as a picture of its first
  frame ("0%| 0/28559"), while the notebook's widget state holds its last;
  the bar is replaced by a one-line summary of that last state
  (:func:`progress_summary`): progress still shows while the notebook runs.
  A bar drawn with ``leave=False`` (a training epoch, one match of many)
  vanishes from JupyterLab when it finishes, and tqdm closes it without
  drawing its last label ("98% 39/40" stays in the state): it is dropped
  (:func:`transient_bar`), as the reader of the live notebook saw it.
  The notebook's saved widget state then keeps only the widgets an output
  still shows (a board, say), and what they refer to: a bar's few models are
  small, but a long run draws hundreds of them.

Used through nbconvert's command line (the Makefile's ``EXECUTE``)::

    jupyter nbconvert --to notebook --execute \\
        --NotebookExporter.preprocessors=mockgo.notebook_export.DropNativeLogLines \\
        --NotebookExporter.preprocessors=mockgo.notebook_export.CleanOutputs \\
        --CleanOutputs.root=$(pwd) ...

or on a notebook already executed, without running it again::

    python -m mockgo.notebook_export --root /where/it/ran docs/notebooks/*.ipynb

:func:`take_markdown` brings a notebook's edited prose into its executed
copy, when only markdown changed since it ran: the outputs are still the
code's, and a full run can take hours::

    python -m mockgo.notebook_export --root . --markdown-from notebooks \
        docs/notebooks/04_zero_selfplay.ipynb
"""

import argparse
import html
import json
import os
import re

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Unicode

from mockgo.native_log import is_native_log_line

__all__ = ["CleanOutputs", "DropNativeLogLines", "clean_text", "progress_summary",
           "referenced_widgets", "relative_paths", "strip_ansi", "take_markdown",
           "transient_bar"]

# ECMA-48 control sequences: ESC [ parameters intermediates final byte (colours,
# cursor moves), and the two-byte escapes (ESC followed by one of @ to _).
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


class DropNativeLogLines(Preprocessor):
    """Drop TensorFlow's native log lines from every code cell's stderr
    stream outputs, and an output left empty by that."""

    def preprocess_cell(self, cell, resources, index):
        if cell.get("cell_type") != "code":
            return cell, resources
        kept = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                text = _joined(output.get("text", ""))
                lines = [line for line in text.splitlines(keepends=True)
                         if not is_native_log_line(line)]
                if not lines:
                    continue
                output["text"] = "".join(lines)
            kept.append(output)
        cell["outputs"] = kept
        return cell, resources


def strip_ansi(text):
    """``text`` without terminal control sequences (colours, bold, cursor moves)."""
    return _ANSI.sub("", text)


def relative_paths(text, root):
    """``text`` with the absolute paths under ``root`` (the repository the
    notebook ran in) written relative to it, and those under its parent as
    ``../``: ``/path/to/mockgo/runs/x`` becomes ``runs/x`` and
    ``/path/to/shared/kgs`` becomes ``../shared/kgs`` for root
    ``/path/to/mockgo``. A path that a table cut short inside the root
    (``/path/to/mo`` at the end of a column) cannot be completed faithfully:
    it is replaced by an ellipsis, padded to its width."""
    root = os.path.normpath(root)
    if root.count("/") < 1 or root == "/":
        return text   # no root, or one that would rewrite every path
    text = re.sub(re.escape(root) + r"(/|(?![\w-]|\.\w))",
                  lambda m: "" if m.group(1) == "/" else ".", text)
    # a prefix of the root (its first folder and two characters of the next,
    # at least) ending a word: the rest of the path was cut off by a fixed width
    shortest = len(root.split("/")[1]) + 4
    prefixes = "|".join(re.escape(root[:n]) for n in range(len(root), shortest - 1, -1))
    text = re.sub(rf"(?<![\w/.])(?:{prefixes})(?=\s|$)",   # padded: columns stay aligned
                  lambda m: "\u2026".ljust(len(m.group())), text, flags=re.M)
    parent = os.path.dirname(root)
    if parent != "/":
        text = re.sub(re.escape(parent) + r"/(?=\w)", "../", text)
    return text


def _carriage_returns_resolved(text):
    """Each line as a terminal shows it at the end: its last part after a
    carriage return that is not empty (tqdm and Keras redraw a line so)."""
    lines = []
    for line in text.split("\n"):
        parts = [part for part in line.split("\r") if part]
        lines.append(parts[-1] if parts else "")
    return "\n".join(lines)


def clean_text(text, root):
    """One output's text as it is stored: ANSI codes removed, redrawn lines
    resolved to their last state, paths relative to ``root``."""
    return relative_paths(_carriage_returns_resolved(strip_ansi(text)), root)


def progress_summary(model_id, widget_state):
    """The one line a progress bar widget ended on, e.g. ``building dataset:
    100% 28559/28559 [04:15<00:00, 72.14game/s]``, from the notebook's saved
    widget state; None when ``model_id`` is not a tqdm bar (a box of a label,
    a progress bar and a label) or its state was not saved."""
    children = _bar_children(model_id, widget_state)
    if children is None:
        return None
    left, right = (_plain(children[i].get("value", "")) for i in (0, 2))
    return " ".join(part for part in (left, right) if part)


def _bar_children(model_id, widget_state):
    """The label, bar and label widgets' states of a tqdm bar, or None when
    ``model_id`` is no tqdm bar (a box of an HTML, a progress and an HTML
    widget) or its state was not saved."""
    box = widget_state.get(model_id, {})
    if box.get("model_name") != "HBoxModel":
        return None
    children = [widget_state.get(child.removeprefix("IPY_MODEL_"), {})
                for child in box.get("state", {}).get("children", [])]
    names = [child.get("model_name") for child in children]
    if names not in (["HTMLModel", "FloatProgressModel", "HTMLModel"],
                     ["HTMLModel", "IntProgressModel", "HTMLModel"]):
        return None
    return [child.get("state", {}) for child in children]


def transient_bar(model_id, widget_state):
    """True when ``model_id`` is a tqdm bar that finished and was closed
    without being left on screen (``leave=False``): tqdm marks a bar it
    leaves ``success`` and an unfinished one ``danger``, and removes the
    other finished ones from the page, so a finished bar with no style was
    gone before the cell ended."""
    children = _bar_children(model_id, widget_state)
    if children is None:
        return False
    bar = children[1]
    return (not bar.get("bar_style") and bar.get("max") is not None
            and bar.get("value", 0) >= bar["max"])


def _plain(widget_html):
    """A tqdm label's HTML as text (tqdm pads with figure spaces)."""
    return html.unescape(widget_html).replace("\u2007", " ").replace("\xa0", " ").strip()


class CleanOutputs(Preprocessor):
    """Store every code cell's outputs as :func:`clean_text` cleans them
    (streams, plain-text results, tracebacks), each progress bar widget
    as the one line it ended on (:func:`progress_summary`), and none of the
    bars that were gone when the cell ended (:func:`transient_bar`)."""

    root = Unicode("", help="the repository the notebook ran in; paths under it are "
                            "written relative to it (default: the current folder)"
                   ).tag(config=True)

    def preprocess(self, nb, resources):
        saved = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {})
        state = saved.get("state", {})
        root = self.root or os.getcwd()
        shown = []
        for cell in nb.cells:
            if cell.get("cell_type") == "code":
                cleaned = (self.clean_output(output, state, root)
                           for output in cell.get("outputs", []))
                cell["outputs"] = [output for output in cleaned if output is not None]
                shown += [output["data"][WIDGET_VIEW].get("model_id")
                          for output in cell["outputs"]
                          if WIDGET_VIEW in output.get("data", {})]
        if state:
            saved["state"] = {model_id: state[model_id]
                              for model_id in referenced_widgets(shown, state)}
        return nb, resources

    @staticmethod
    def clean_output(output, widget_state, root):
        """One output, cleaned; a progress bar widget becomes a stdout line,
        or None (to drop) when the bar was gone before the cell ended."""
        kind = output.get("output_type")
        if kind == "stream":
            output["text"] = clean_text(_joined(output.get("text", "")), root)
        elif kind in ("display_data", "execute_result"):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                model_id = data[WIDGET_VIEW].get("model_id")
                if transient_bar(model_id, widget_state):
                    return None
                line = progress_summary(model_id, widget_state)
                if line is not None:
                    return nbformat.v4.new_output("stream", name="stdout", text=line + "\n")
            if "text/plain" in data:
                data["text/plain"] = clean_text(_joined(data["text/plain"]), root)
        elif kind == "error":
            output["traceback"] = [clean_text(line, root) for line in output.get("traceback", [])]
            output["evalue"] = clean_text(output.get("evalue", ""), root)
        return output


def referenced_widgets(model_ids, widget_state):
    """``model_ids`` and every widget their saved states refer to
    ("IPY_MODEL_<id>", at any depth), in ``widget_state``'s order."""
    needed, todo = set(), [m for m in model_ids if m in widget_state]
    while todo:
        model_id = todo.pop()
        if model_id in needed:
            continue
        needed.add(model_id)
        text = json.dumps(widget_state[model_id].get("state", {}))
        todo += [m for m in re.findall(r"IPY_MODEL_([0-9a-zA-Z_-]+)", text) if m in widget_state]
    return [m for m in widget_state if m in needed]


def _joined(text):
    return "".join(text) if isinstance(text, list) else text


def take_markdown(executed, source):
    """``executed`` (a notebook node with outputs) with the markdown cells of
    ``source``, the notebook it was executed from, edited since. The cells
    must be the same ones in the same order (their ids), and the code cells
    the same, source for source, or the outputs would not be the code's:
    ValueError naming the first that differs (execute the notebook again),
    with nothing changed. Returns how many markdown cells changed."""
    if [c.get("id") for c in executed.cells] != [c.get("id") for c in source.cells]:
        raise ValueError("cells were added, removed or moved since it ran: only markdown can be "
                         "carried over; execute the notebook again")
    pairs = list(zip(executed.cells, source.cells))
    for old, new in pairs:
        if old.cell_type == "code" and old.source != new.source:
            raise ValueError(f"code cell {new.get('id')} differs from the one executed: only "
                             f"markdown can be carried over; execute the notebook again")
    changed = 0
    for old, new in pairs:
        if old.cell_type == "markdown" and old.source != new.source:
            old.source = new.source
            changed += 1
    return changed


def main(argv=None):
    """Clean notebooks already executed, in place (their outputs as stored;
    nothing is run)."""
    parser = argparse.ArgumentParser(
        prog="python -m mockgo.notebook_export",
        description="Clean executed notebooks' stored outputs in place: TensorFlow's start-up "
                    "lines dropped, paths relative to the repository, no ANSI codes, progress "
                    "bars as one line.")
    parser.add_argument("notebooks", nargs="+", help=".ipynb files to clean in place")
    parser.add_argument("--root", required=True,
                        help="the repository folder the notebooks were executed in")
    parser.add_argument("--markdown-from", metavar="FOLDER",
                        help="the folder of the notebooks they were executed from: take their "
                             "markdown cells, edited since (the code cells must be the same)")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        nb = nbformat.read(path, as_version=4)
        if args.markdown_from:
            source = os.path.join(args.markdown_from, os.path.basename(path))
            try:
                changed = take_markdown(nb, nbformat.read(source, as_version=4))
            except ValueError as error:
                parser.exit(1, f"{path}: {error}\n")
            print(f"{path}: {changed} markdown cells from {source}")
        nb, _ = DropNativeLogLines().preprocess(nb, {})
        nb, _ = CleanOutputs(root=args.root).preprocess(nb, {})
        nbformat.write(nb, path)
        print(f"cleaned {path}")


if __name__ == "__main__":
    main()
