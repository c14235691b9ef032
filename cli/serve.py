"""`tablebase serve`: the web explorer on a local address (see docs/explorer.md)."""

from __future__ import annotations

import click

from tablebase.cli.app import TablebaseError, Whole, db_option, main, progress_printer, proof_options, proof_pairs


@main.command("serve", epilog="""\b
Example:
    tablebase solve sparro --variant standard && tablebase serve
    tablebase serve --db /data/tablebase.sqlite --port 8080
    tablebase serve --proof proofs/limping3-hull-setbacks.proof.tsv.gz \\
        --journal proofs/limping3-hull-setbacks.journal""")
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 opens it to the network).")
@click.option("--port", type=Whole(1, 65535), default=8000, show_default=True, help="Port to listen on.")
@proof_options()
def serve(db_path: str, host: str, port: int, proofs: tuple[str, ...], journals: tuple[str, ...]) -> None:
    """Browse the tablebase in a web browser: a clickable board with every move's value,
    undo and redo, the principal variation, a value-history chart, permalinks, a
    background search for positions no table holds, a puzzle trainer and the fairness
    report; and a JSON API under /api/ (/api/probe answers what `probe --json` prints).

    The file is opened read-only, so a solve may write to it meanwhile. Every page and
    script ships with the package: it works offline. Stop the server with Ctrl-C.

    With --proof (and its --journal) the fairness report also has the first-player claim
    of each weak solution, as 'tablebase verify --proof' makes it: each proof is checked
    before the server starts, taking its big leaves from the journal (a leaf the journal
    lacks is an error: run 'tablebase check --proof FILE --journal JOURNAL' first).
    """
    from tablebase.web.app import listen

    try:
        server = listen(db_path, host, port, proof_pairs(proofs, journals), progress_printer(False))
    except OSError as exc:  # the port is taken, or the address is not this machine's
        raise TablebaseError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    click.echo(f"tablebase explorer on http://{host}:{port}/ (file {db_path!r}; Ctrl-C to stop)", err=True)
    server.run()
