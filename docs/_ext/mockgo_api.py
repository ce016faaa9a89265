"""The project's additions to Sphinx for the book (`make book`, docs/install.md):

- ``.. mockgo-api:: PACKAGE`` (in a ``{eval-rst}`` block of docs/api/): a
  subpackage's reference page, made from the code. For the package and each
  of its modules (a section each): the module's docstring, then its public
  names (``__all__``) that it defines, by autodoc (signature, docstring, a
  class's members), and the names it re-exports, as links to their home. A
  module without a docstring, or a public name without one (a constant's is
  a ``#:`` comment above it), is a warning, and the strict build (``-W``)
  fails on it as on a broken reference (``nitpicky``). ``mockgo``'s page is
  the package's top level and its own modules, without the subpackages.
- A reference that Sphinx does not find (``:func:`make_player``` where the
  module imports it from elsewhere, or through a re-export layer) goes to
  the name's home when that is documented; anything else stays a warning.
- Names in prose link to the reference: inline code such as
  ``mockgo.search.mcts`` or ``notebook.check(...)`` in the notebooks'
  markdown and the pages of docs/ becomes a link when it names a documented
  module, class, function or method (through a re-export too).
- Formulas are typeset by a copy of MathJax inside the site, so that the
  site reads offline.
"""


import ast
import importlib
import inspect
import pkgutil
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

logger = logging.getLogger(__name__)


def modules_of(name):
    """The modules of a page: the package first, then its modules (for
    ``mockgo``, its own modules only: each subpackage has its page)."""
    package = importlib.import_module(name)
    found = [package]
    for info in sorted(pkgutil.iter_modules(package.__path__, name + "."), key=lambda i: i.name):
        if name == "mockgo" and info.ispkg or info.name.endswith(".__main__"):
            continue  # a subpackage has its own page; __main__ runs a command
        try:
            found.append(importlib.import_module(info.name))
        except ImportError:  # a folder of data in an installed wheel (mockgo.data.gnugo9)
            continue
    return found


def module_entries(module):
    """The reST of one module's part of its page, and its problems (a missing
    module docstring; a public name without a docstring): ``(lines,
    problems)``. Public: what ``__all__`` lists. A module without
    ``__all__`` shows the classes and functions it defines whose names do
    not start with ``_`` (each must have a docstring), and those of its
    constants that have a ``#:`` comment. A name that the module imports is
    documented where it is defined, and linked."""
    name = module.__name__
    problems = [] if (module.__doc__ or "").strip() else [f"{name} has no module docstring"]
    lines = [f".. automodule:: {name}", "   :no-members:", ""]
    imported = _imported_names(module)
    attribute_docs = ModuleAnalyzer.for_module(name).find_attr_docs()
    public = getattr(module, "__all__", None)
    if public is None:
        public = [attribute for attribute, obj in vars(module).items()
                  if not attribute.startswith("_") and attribute not in imported
                  and not inspect.ismodule(obj)
                  and (_is_code(obj) or ("", attribute) in attribute_docs)]
    elsewhere = []
    for attribute in public:
        obj = getattr(module, attribute)
        home = _home_of(obj, imported.get(attribute), f"{name}.{attribute}")
        if home != f"{name}.{attribute}":
            elsewhere.append(f":{_kind_role(obj)}:`{attribute} <{home}>`")
            continue
        if _is_code(obj):
            documented = _own_docstring(obj)
        else:
            documented = ("", attribute) in attribute_docs
            if not documented and type(obj).__module__.split(".")[0] == "mockgo":
                # An object of a mockgo class (an Exercise...): its class says what it is.
                kind = type(obj)
                lines += [f".. py:data:: {attribute}",
                          f"   :type: {kind.__module__}.{kind.__qualname__}", ""]
                continue
        if not documented:
            problems.append(f"{name}.{attribute} is public but has no docstring"
                            + ("" if _is_code(obj) else " (for a constant, a #: comment above it)"))
        lines += _directive(module, attribute, obj)
    if elsewhere:
        lines += [f"Also public in ``{name}``, and documented where they are defined: "
                  + ", ".join(elsewhere) + ".", ""]
    return lines, problems


def _is_code(obj):
    """A class or a function (numba's compiled ones too), not a value."""
    return inspect.isclass(obj) or inspect.isroutine(obj) or hasattr(obj, "py_func")


def _own_docstring(obj):
    """The docstring written for ``obj`` itself (a dataclass's generated
    ``Name(field, ...)`` one, and a class's inherited one, do not count)."""
    if hasattr(obj, "py_func"):  # numba's dispatcher: the compiled function's
        obj = obj.py_func
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    if inspect.isclass(obj) and doc and doc.startswith(obj.__name__ + "("):
        return None
    return doc.strip() if isinstance(doc, str) else None


def _directive(module, name, obj):
    full = f"{module.__name__}.{name}"
    if inspect.isclass(obj):
        kind = "autoexception" if issubclass(obj, BaseException) else "autoclass"
        return [f".. {kind}:: {full}", "   :members:", "   :undoc-members:", ""]
    if _is_code(obj):
        return [f".. autofunction:: {full}", ""]
    return [f".. autodata:: {full}", "   :no-value:", ""]


def _kind_role(obj):
    if inspect.ismodule(obj):
        return "mod"
    if inspect.isclass(obj):
        return "class"
    return "func" if _is_code(obj) else "data"


def _imported_names(module):
    """The names a module binds by importing, outside its functions and
    classes (in a ``try`` too): ``{name: "the.module.name"}``."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return {}
    found, todo = {}, list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = alias.name
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo += [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return found


def _home_of(obj, imported_as, default):
    """The full name of the place where ``obj`` is defined: a module's own
    name, a class's or function's module and qualified name, else the name
    it was imported as, else ``default``."""
    if inspect.ismodule(obj):
        return obj.__name__
    if _is_code(obj) and getattr(obj, "__module__", None) and getattr(obj, "__qualname__", None):
        return f"{obj.__module__}.{obj.__qualname__}"
    if imported_as and imported_as.startswith("mockgo."):
        module_name, _, attribute = imported_as.rpartition(".")
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            return imported_as
        return _home_of(obj, _imported_names(module).get(attribute), imported_as)
    return imported_as or default


class MockgoApi(SphinxDirective):
    """``.. mockgo-api:: mockgo.search``: the reference of one subpackage."""

    required_arguments = 1

    def run(self):
        lines = []
        for index, module in enumerate(modules_of(self.arguments[0])):
            if index:  # each module a section of the page (the package's is the page's title)
                lines += [module.__name__, "-" * len(module.__name__), ""]
            module_lines, problems = module_entries(module)
            lines += module_lines
            for problem in problems:
                logger.warning(problem, location=self.get_location())
        container = nodes.section()
        container.document = self.state.document
        view = StringList(lines, source=f"mockgo-api {self.arguments[0]}")
        self.state.nested_parse(view, self.content_offset, container, match_titles=True)
        return container.children


# ------------------------------------------------------- names in prose

NAME = re.compile(r"^([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?:\(.*\))?$")


def _home(dotted):
    """``dotted`` as the full name of its home, found by importing the
    longest module prefix and following the attributes (through
    re-exports). None when it names nothing."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        obj, rest = module, parts[cut:]
        try:
            for attribute in rest:
                obj = getattr(obj, attribute)
        except AttributeError:
            return None
        if not rest or _is_code(obj):
            return _home_of(obj, None, dotted)
        if len(rest) == 1:
            return _home_of(obj, _imported_names(module).get(rest[0]), dotted)
        owner = _home(".".join(parts[:cut + 1]))  # an attribute of a class: its class's home
        return owner and ".".join([owner, *rest[1:]])
    return None


def resolve_through_imports(app, env, node, contnode):
    """Sphinx's ``missing-reference``: a reference to a mockgo name that
    Sphinx did not find (a re-export, or a name imported into the module
    whose docstring refers to it) goes to the name's home if that is
    documented. Anything else stays missing (a warning)."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    module, owner = node.get("py:module"), node.get("py:class")
    candidates = [target] + ([f"{module}.{owner}.{target}"] if module and owner else []) + \
        ([f"{module}.{target}"] if module else [])
    objects = env.get_domain("py").objects
    for candidate in candidates:
        home = _home(candidate) if candidate.split(".")[0] == "mockgo" else None
        if home in objects:
            entry = objects[home]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, home)
    return None


class LinkNamesInProse(SphinxPostTransform):
    """Inline code that names a documented object becomes a link to it."""

    default_priority = 5  # before the references are resolved

    def run(self):
        domain = self.env.get_domain("py")
        objects = domain.objects
        for literal in list(self.document.findall(nodes.literal)):
            if isinstance(literal.parent, (nodes.reference, nodes.literal_block)) or \
                    "xref" in literal.get("classes", []):
                continue
            match = NAME.match(literal.astext().strip())
            if not match:
                continue
            target = self.resolve(match.group(1), objects)
            if target is None:
                continue
            entry = objects[target]
            uri = self.app.builder.get_relative_uri(self.env.docname, entry.docname)
            reference = nodes.reference("", "", internal=True, refuri=f"{uri}#{entry.node_id}",
                                        reftitle=target, classes=["mockgo-api-link"])
            literal.replace_self(reference)
            reference.append(literal)

    @staticmethod
    def resolve(name, objects):
        for candidate in (name, f"mockgo.{name}"):
            if candidate in objects:
                return candidate
            if candidate.split(".")[0] != "mockgo":
                continue
            home = _home(candidate)
            if home in objects:
                return home
        return None


# --------------------------------------------------- formulas, offline

MATHJAX = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"  # the one config it carries


def local_mathjax(app, config):
    """The notebooks' formulas are typeset by MathJax 2 from the site itself
    (the jupyter-server-mathjax package of the docs extra carries it), not
    from a CDN: the site is read from disk, online or not."""
    config.mathjax_path = MATHJAX
    config.mathjax3_config = None
    # The package carries the STIX-Web fonts only (as Jupyter's notebook configured them).
    # The theme marks the page tex2jax_ignore: the formulas are in these classes.
    classes = "tex2jax_process|mathjax_process|math|output_area"
    config.mathjax2_config = {"tex2jax": {"inlineMath": [["\\(", "\\)"]],
                                          "displayMath": [["\\[", "\\]"]],
                                          "processClass": classes},
                              "HTML-CSS": {"availableFonts": [], "preferredFont": None,
                                           "webFont": "STIX-Web", "imageFont": None}}


def copy_mathjax(app, exception):
    """Copy MathJax into the built site's ``_static/mathjax/``."""
    if exception is None and app.builder.format == "html":
        import jupyter_server_mathjax  # here: only an HTML build needs it

        source = Path(jupyter_server_mathjax.__file__).parent / "static"
        shutil.copytree(source, Path(app.outdir) / "_static" / "mathjax", dirs_exist_ok=True)


def setup(app):
    app.add_directive("mockgo-api", MockgoApi)
    app.add_post_transform(LinkNamesInProse)
    app.connect("missing-reference", resolve_through_imports)
    app.connect("config-inited", local_mathjax, priority=900)
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
