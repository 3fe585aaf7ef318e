"""Sphinx configuration of the m2bridge documentation (``make docs``).

Built with warnings as errors (``-W --keep-going``). Three kinds of pages are generated here, at every
build, so that they cannot fall out of step with the code:

* ``api/*.md``: one page per package, an ``automodule`` for each of its modules, found by walking the package
  (a module added or moved is documented without editing this file; the one-release re-export shims are left out);
* ``_generated/cli/*.txt``: the ``--help`` text of every command of the command line, included by ``cli.md``;
* ``notebooks/*.ipynb``: copies of ``examples/notebooks/*.ipynb`` (stored without outputs), executed by myst-nb
  while the site is built, so the site shows their real outputs.
"""

from __future__ import annotations

import importlib
import io
import os
import pkgutil
import re
import shutil
import sys
from contextlib import redirect_stdout
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document the working tree, not an installed copy
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])  # notebook kernels

import m2bridge  # noqa: E402

project = "m2bridge"
author = "m2bridge developers"
copyright = "m2bridge developers (MIT licence)"
release = version = m2bridge.__version__

extensions = [
    "myst_nb",  # Markdown pages (MyST) and notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "_generated"]

# ------------------------------------------------------------------ MyST
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3  # [text](page.md#a-section-title) links

# ------------------------------------------------------------------ notebooks (myst-nb)
nb_execution_mode = "force"  # every build runs the notebooks: the site shows what the code computes today
nb_execution_timeout = 600
nb_execution_raise_on_error = True  # an error in a notebook fails the build
nb_execution_show_tb = True
nb_merge_streams = True
nb_render_markdown_format = "myst"  # Markdown outputs (tables, $math$) rendered as the pages are
# plotly figures: the kernels render them as HTML for a page that loads plotly.js (a local copy, notebook pages
# only); the JSON that plotly also emits has no renderer here
os.environ["PLOTLY_RENDERER"] = "sphinx_gallery"
suppress_warnings = ["mystnb.unknown_mime_type"]

# ------------------------------------------------------------------ autodoc
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_preserve_defaults = True
autodoc_mock_imports: list[str] = []
napoleon_google_docstring = True
napoleon_numpy_docstring = True
nitpicky = False  # type hints name NumPy, sympy and flint types that have no documentation here
python_use_unqualified_type_names = True



def _escape_bars(app, what, name, obj, options, lines) -> None:
    """Docstrings write norms as ``|x|``, which reStructuredText reads as a substitution: escape the bars outside
    tables and inline literals (the docstrings stay plain text for readers of the code)."""
    for i, line in enumerate(lines):
        if re.match(r"\s*[|+=]", line) or "|" not in line:
            continue
        parts = re.split(r"(``.*?``)", line)
        lines[i] = "".join(p if p.startswith("``") else p.replace("|", "\\|") for p in parts)


def _plotly_on_notebook_pages(app, pagename, templatename, context, doctree) -> None:
    if pagename.startswith("notebooks/"):
        app.add_js_file("plotly.min.js")


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("html-page-context", _plotly_on_notebook_pages)


# ------------------------------------------------------------------ HTML
# furo: a left sidebar with the whole table of contents (a guide per task reads as one list), a table of contents
# of the page on the right, light and dark modes, readable API pages; no extra extensions to configure
html_theme = "furo"
html_title = f"m2bridge {release}"
html_static_path = ["_static"]
html_theme_options = {
    "source_repository": "",
    "navigation_with_keys": True,
}
html_show_sourcelink = False

# ------------------------------------------------------------------ generated pages
API_GROUPS = [  # (page, title, packages or modules documented there, introduction)
    ("network", "Networks and layers", ["m2bridge.network", "m2bridge.layers", "m2bridge.formulas", "m2bridge.determinantal"],
     "A network is a sequence of layers and a number of tokens (Mathematics, sections 1, 2, 8, 9)."),
    ("results", "Results, schemas, errors and time limits",
     ["m2bridge.results", "m2bridge.schemas", "m2bridge.errors", "m2bridge.deadline", "m2bridge.run_context"],
     "The status vocabulary of every result ([Results you can cite](../results.md)), the JSON Schema of every "
     "command's output, the error tree, the time limit of a whole run and the context its parts share."),
    ("dimension", "Dimensions", ["m2bridge.dimension", "m2bridge.compare", "m2bridge.numeric"],
     "Dimensions by numeric, exact and formula methods, and comparison grids "
     "([guide](../guide/dimensions.md))."),
    ("exact", "Exact computations (Macaulay2, python-flint)", ["m2bridge.exact"],
     "Implicit equations, singular loci, fibers, the degree-by-degree engine and its certificates, counts "
     "over prime fields ([guide](../guide/exact.md))."),
    ("metric", "The loss and robustness", ["m2bridge.metric"],
     "Critical points of squared distances on neuromanifolds: the loss of a dataset and the distance to a "
     "decision boundary ([loss](../guide/loss.md), [robustness](../guide/robustness.md))."),
    ("homotopy", "Homotopy continuation", ["m2bridge.homotopy", "m2bridge.witness"],
     "The path tracker, monodromy, the trace test and Krawczyk certification "
     "([Results you can cite](../results.md)); the public engine for any square system "
     "([guide](../guide/engine.md)); witness sets of critical loci."),
    ("bridge", "The Macaulay2 bridge", ["m2bridge.bridge"],
     "The persistent Macaulay2 session, values in both directions, the AttentionGeometry package, the doctor "
     "and the IPython magics ([teaching](../guide/teaching.md))."),
    ("infrastructure", "Fields and parallel work", ["m2bridge.fields", "m2bridge.parallel"],
     "One arithmetic for float64, GF(p) and QQ with the project's primes, and every pool of worker processes."),
]


def _myst(text: str) -> str:
    """A docstring's first line inside a Markdown table: its reStructuredText roles as MyST roles, bars escaped."""
    text = text.replace("|", "\\|")
    return re.sub(r":(mod|class|func|meth|attr|data|exc):`~?([^`]+)`", r"{py:\1}`\2`", text)


def _modules(name: str) -> list[str]:
    """``name`` and, for a package, every module below it (in order)."""
    module = importlib.import_module(name)
    found = [name]
    if hasattr(module, "__path__"):
        for info in sorted(pkgutil.walk_packages(module.__path__, name + "."), key=lambda i: i.name):
            if info.name.endswith("__main__"):
                continue
            found.append(info.name)
    return found


def _is_package(name: str) -> bool:
    """A package: its ``__init__`` re-exports names that are documented in the modules that define them."""
    return hasattr(importlib.import_module(name), "__path__")


def _has_docstring(name: str) -> bool:
    return bool((importlib.import_module(name).__doc__ or "").strip())


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:  # unchanged pages keep their time stamp (fast rebuilds)
        path.write_text(text)


def _api_pages() -> None:
    out = DOCS / "api"
    top = ["# API reference", "",
           "Generated from the docstrings of the code ([how the package is laid out](../layout.md)). "
           "The names of `m2bridge.__all__` are importable from `m2bridge` itself:", "",
           "| name | defined in | what it is |", "|---|---|---|"]
    for name in m2bridge.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(m2bridge, name)
        where = getattr(obj, "__module__", "m2bridge")
        paragraph = (getattr(obj, "__doc__", None) or "").strip().split("\n\n")[0]
        sentence = re.split(r"(?<=[.;])\s", " ".join(line.strip() for line in paragraph.splitlines()))[0]
        first = _myst(sentence.rstrip(".;"))
        top.append(f"| {{py:obj}}`{name} <{where}.{name}>` | `{where}` | {first} |")
    top += ["", "```{toctree}", ":maxdepth: 2", ""] + [page for page, *_ in API_GROUPS] + ["```", ""]
    _write(out / "index.md", "\n".join(top))
    for page, title, packages, intro in API_GROUPS:
        lines = [f"# {title}", "", intro, ""]
        for package in packages:
            for name in _modules(package):
                if _is_package(name) and not _has_docstring(name):
                    continue
                lines += [f"## `{name}`", "", "```{eval-rst}", f".. automodule:: {name}"]
                if _is_package(name):  # the package's own docstring; its names are documented in their modules
                    lines += ["   :no-members:"]
                lines += ["```", ""]
        _write(out / f"{page}.md", "\n".join(lines))


def _cli_help() -> None:
    """The ``--help`` text of the command line and of each command, as the terminal shows it (80 columns)."""
    os.environ["COLUMNS"] = "80"
    from m2bridge.cli.main import build_parser

    parser = build_parser()
    out = DOCS / "_generated" / "cli"
    _write(out / "m2bridge.txt", parser.format_help())
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():
        _write(out / f"{name}.txt", command.format_help())


def _module_table() -> None:
    """One line per module of the package: its path and the first line of its docstring (layout.md includes it)."""
    lines = ["| module | what it is |", "|---|---|"]
    for name in _modules("m2bridge"):
        module = importlib.import_module(name)
        paragraph = (module.__doc__ or "").strip().split("\n\n")[0]  # the first paragraph, on one line
        first = _myst(" ".join(line.strip() for line in paragraph.splitlines()))
        path = Path(module.__file__).relative_to(ROOT)
        lines.append(f"| `{path}` | {first} |")
    _write(DOCS / "_generated" / "modules.md", "\n".join(lines) + "\n")


def _plotly_js() -> None:
    """plotly.js from the installed plotly package, so the notebooks' figures work without a network."""
    import plotly

    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    target = DOCS / "_static" / "plotly.min.js"
    target.parent.mkdir(exist_ok=True)
    if not target.exists() or target.stat().st_size != source.stat().st_size:
        shutil.copyfile(source, target)


def _notebooks() -> None:
    source = ROOT / "examples" / "notebooks"
    target = DOCS / "notebooks"
    target.mkdir(exist_ok=True)
    wanted = {p.name for p in source.glob("*.ipynb")}
    for old in target.glob("*.ipynb"):
        if old.name not in wanted:
            old.unlink()
    for nb in sorted(source.glob("*.ipynb")):
        if not (target / nb.name).exists() or (target / nb.name).read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target / nb.name)


with redirect_stdout(io.StringIO()):
    _api_pages()
    _cli_help()
    _module_table()
    _plotly_js()
    _notebooks()
