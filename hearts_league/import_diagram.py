"""The import diagram of docs/architecture.md, drawn from the code (grimp, import-linter's graph).

    python -m hearts_league.import_diagram          # rewrite the diagram in docs/architecture.md
    python -m hearts_league.import_diagram --check  # exit 1 if the document's diagram is stale

One box per app, and per wing inside ``tournaments``; an arrow ``a --> b`` means some module of
``a`` imports one of ``b``. Migrations and the project glue (URLs, routing, the admin's index,
management commands) are left out: they import everything and nothing imports them.
"""

from __future__ import annotations

import sys
from pathlib import Path

PACKAGES = ("engine", "tournaments", "ratings", "analysis", "web")
WINGS = ("autoplay", "live", "competitions", "games", "clubs", "dispatch", "models", "names")
GLUE = ("tournaments.urls", "tournaments.admin", "tournaments.management", "tournaments.apps")
DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"
BEGIN, END = "<!-- import diagram: begin -->", "<!-- import diagram: end -->"


def box(module: str) -> str | None:
    """The diagram's box for a module, or None if the diagram leaves it out."""
    parts = module.split(".")
    if "migrations" in parts or module.startswith(GLUE) or parts[0] not in PACKAGES:
        return None
    if parts[0] == "tournaments" and len(parts) > 1:
        return f"tournaments.{parts[1]}" if parts[1] in WINGS else None
    return parts[0]


def edges() -> list[tuple[str, str]]:
    """Every (importer box, imported box) pair, sorted."""
    import grimp

    graph = grimp.build_graph(*PACKAGES)
    found = set()
    for module in graph.modules:
        source = box(module)
        if source is None:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            target = box(imported)
            if target is not None and target != source:
                found.add((source, target))
    return sorted(found)


def mermaid() -> str:
    """The diagram as a Mermaid flowchart inside a fenced block."""
    lines = ["```mermaid", "flowchart TD"]
    lines += [f"    {a.replace('.', '_')}[{a}] --> {b.replace('.', '_')}[{b}]" for a, b in edges()]
    return "\n".join([*lines, "```"])


def document_with_diagram(text: str) -> str:
    """``text`` with the part between the markers replaced by the current diagram."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{mermaid()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    text = DOCUMENT.read_text()
    current = document_with_diagram(text)
    if "--check" in argv:
        if current != text:
            print(f"{DOCUMENT}: the import diagram is stale; run python -m hearts_league.import_diagram")
            return 1
        return 0
    DOCUMENT.write_text(current)
    print(f"{DOCUMENT}: {len(edges())} arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
