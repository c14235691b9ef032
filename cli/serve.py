"""`tablebase serve`: the web explorer on a local address (see docs/explorer.md)."""

from __future__ import annotations

import click

from tablebase.cli.app import TablebaseError, db_option, main


@main.command("serve", epilog="""\b
Example:
    tablebase solve sparro --variant standard && tablebase serve
    tablebase serve --db /data/tablebase.sqlite --port 8080""")
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 opens it to the network).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="Port to listen on.")
def serve(db_path: str, host: str, port: int) -> None:
    """Browse the tablebase in a web browser: a clickable board with every move's value,
    undo and redo, the principal variation, a value-history chart, permalinks, a
    background search for positions no table holds, a puzzle trainer and the fairness
    report; and a JSON API under /api/ (/api/probe answers what `probe --json` prints).

    The file is opened read-only, so a solve may write to it meanwhile. Every page and
    script ships with the package: it works offline. Stop the server with Ctrl-C.
    """
    from tablebase.web.app import listen

    try:
        server = listen(db_path, host, port)
    except OSError as exc:  # the port is taken, or the address is not this machine's
        raise TablebaseError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    click.echo(f"tablebase explorer on http://{host}:{port}/ (file {db_path!r}; Ctrl-C to stop)", err=True)
    server.run()
