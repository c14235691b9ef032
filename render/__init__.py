"""Drawings of positions: text (`render.text`), SVG (`render.svg`), HTML sheets and
Markdown reports (`render.html`). Pure functions from rules objects and positions (or
finished reports) to text; no I/O, no solving."""
