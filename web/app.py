"""The web explorer's HTTP layer: pages, static assets and the JSON API.

Routes only translate HTTP into calls of `Explorer` (see web/backend.py) and answers
into responses. A user error (bad notation, an illegal move, unknown rules) is HTTP 400
with the command line's one-line message as ``{"error": ...}``; a position no table holds
is no user error (its probe is answered from the rules, ``"no_table"`` saying why).

API (all GET unless said otherwise; rules parameters: Sparro ``variant``, Smallholder
``board``, ``ruleset``, ``rules``; ``after`` plays moves, space or comma separated):

* ``/api/probe?game=&position=&...`` the object `tablebase probe GAME POSITION --json` prints
  (for a position no table holds, the same keys from the rules alone and ``"no_table"``);
* ``/api/moves?game=&position=&...`` the object `tablebase moves GAME POSITION --json` prints;
* ``/api/svg?game=&position=&...`` the SVG picture of the position;
* ``/api/puzzles?game=&rules=&grade=&min_depth=&max_depth=&limit=`` the puzzles (`puzzles list --json`), ``/api/puzzles/ID``
  one puzzle with its solution tree;
* ``/api/fairness`` the claims of `tablebase verify --json` whose tables the file holds,
  ``/api/games`` the rules choices;
* ``POST /api/search?game=&position=&...`` starts a background search, ``GET /api/search/JOB``
  polls it, ``DELETE /api/search/JOB`` stops it.
"""

from __future__ import annotations

import gc
import socket
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from tablebase.service.progress import Progress
from tablebase.service.puzzles import DEPTH_FILTER_RANGE, LIMIT_RANGE
from tablebase.service.verify import Claim, proof_claims
from tablebase.web.backend import USER_ERRORS, BadRequest, Explorer, error_line, is_whole_number
from tablebase.web.jobs import SearchJobs

STATIC = Path(__file__).parent / "static"
#: The parameters that choose a position (passed on as they are).
POSITION_PARAMETERS = ("position", "variant", "board", "ruleset", "rules", "after")
PUZZLE_FILTERS = ("game", "rules", "grade", "min_depth", "max_depth", "limit")
PAGES = {"/": "index.html", "/puzzles": "puzzles.html", "/fairness": "fairness.html"}


def _error(exc: Exception, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error_line(exc)}, status_code=status)


def _only_known_parameters(request: Request, known: tuple[str, ...]) -> None:
    """A 400 naming the first query parameter not in ``known`` (one a client misspelt
    would otherwise be ignored without a word), or one given twice (which of the two
    values would count?)."""
    unknown = sorted(set(request.query_params) - set(known))
    if unknown:
        expected = f"expected {', '.join(known)}" if known else "this address takes none"
        raise BadRequest(f"unknown parameter ({expected}): {unknown[0]!r}")
    repeated = sorted(name for name in request.query_params if len(request.query_params.getlist(name)) > 1)
    if repeated:
        raise BadRequest(f"parameter given more than once: {repeated[0]!r}")


def _position_request(request: Request) -> dict[str, Any]:
    params = request.query_params
    _only_known_parameters(request, ("game", *POSITION_PARAMETERS))
    if "game" not in params:
        raise BadRequest("missing parameter 'game' (sparro or smallholder)")
    return {"game": params["game"], **{name: params[name] for name in POSITION_PARAMETERS if name in params}}


def _int_parameter(request: Request, name: str, span: tuple[int, int] | None = None) -> int | None:
    """The whole number of parameter ``name`` (None when it is not given), written in ASCII
    digits: ``int`` would also take "+1", " 1", "1_0" or "١"; with ``span``, from its
    first to its last number (the command line's range for the option)."""
    text = request.query_params.get(name)
    if text is None:
        return None
    if not is_whole_number(text) or (span is not None and not span[0] <= int(text) <= span[1]):
        within = f" from {span[0]} to {span[1]}" if span is not None else ""
        raise BadRequest(f"{name} must be a whole number{within}: {text!r}")
    return int(text)


def _answering(call: Callable[[Request], Any], inline: bool = False) -> Callable[[Request], Any]:
    """An endpoint running ``call`` in the thread pool, user errors made 400s. With
    ``inline`` the call runs on the event loop itself: for answers that never search
    (a table probe takes about a millisecond), where handing the call to a thread and
    back would cost more than the call and, with many clients, most of the latency."""

    async def endpoint(request: Request) -> Response:
        try:
            answer = call(request) if inline else await run_in_threadpool(call, request)
        except (*USER_ERRORS, BadRequest) as exc:
            return _error(exc)
        return answer if isinstance(answer, Response) else JSONResponse(answer)

    return endpoint


#: Allocations between two youngest-generation collections while serving (Python's default
#: is 700): probes allocate many short-lived objects, and each collection stops every thread.
SERVER_GC_THRESHOLD = 20_000


def quiet_collector() -> None:
    """Fewer, shorter garbage-collector pauses in a long-running server: everything loaded
    so far (modules, rules tables, engine caches) is moved out of the collector's sight, and
    young collections run less often. A full collection had to walk the rules engine's
    caches (tens of thousands of objects) and stopped every request for 70-190 ms."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(SERVER_GC_THRESHOLD, *gc.get_threshold()[1:])


def create_app(db_path: str | Path, proved: tuple[Claim, ...] = ()) -> Starlette:
    """The explorer for one tablebase file (opened read-only, per request thread); its
    fairness report adds the first-player claims of checked weak solutions (``proved``)."""
    explorer = Explorer(db_path, proved)
    jobs = SearchJobs(str(db_path))

    def games(request: Request) -> Any:
        _only_known_parameters(request, ())
        return explorer.games()

    def fairness(request: Request) -> Any:
        _only_known_parameters(request, ())
        return explorer.fairness()

    def probe(request: Request) -> Any:
        return explorer.probe(**_position_request(request))

    def moves(request: Request) -> Any:
        return explorer.moves(**_position_request(request))

    def svg(request: Request) -> Any:
        return Response(explorer.svg(**_position_request(request)), media_type="image/svg+xml")

    def puzzles(request: Request) -> Any:
        params = request.query_params
        _only_known_parameters(request, PUZZLE_FILTERS)
        shallowest = _int_parameter(request, "min_depth", DEPTH_FILTER_RANGE)
        deepest = _int_parameter(request, "max_depth", DEPTH_FILTER_RANGE)
        if shallowest is not None and deepest is not None and shallowest > deepest:
            raise BadRequest(f"min_depth {shallowest} is more than max_depth {deepest}")
        return explorer.puzzles(params.get("game"), params.get("rules"),
                                _int_parameter(request, "grade"), _int_parameter(request, "limit", LIMIT_RANGE),
                                shallowest, deepest)

    def puzzle(request: Request) -> Any:
        text = request.path_params["puzzle_id"]
        if not is_whole_number(text):
            raise BadRequest(f"a puzzle id is a whole number: {text!r}")
        return explorer.puzzle(int(text))

    def search_start(request: Request) -> Any:
        request_args = _position_request(request)
        explorer.moves(**request_args)  # a bad position is refused here, not in the background
        try:
            return jobs.start(request_args)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=429)

    def search_job(request: Request) -> Any:
        job_id = request.path_params["job"]
        try:
            return jobs.stop(job_id) if request.method == "DELETE" else jobs.status(job_id)
        except KeyError as exc:
            return JSONResponse({"error": exc.args[0]}, status_code=404)

    def page(name: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            return FileResponse(STATIC / name, media_type="text/html")
        return serve

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        jobs.close()

    routes: list[BaseRoute] = [Route(path, page(name)) for path, name in PAGES.items()]
    routes += [
        Route("/api/games", _answering(games)),
        Route("/api/fairness", _answering(fairness)),
        Route("/api/probe", _answering(probe, inline=True)),  # tables only: /api/search searches
        Route("/api/moves", _answering(moves)),
        Route("/api/svg", _answering(svg)),
        Route("/api/puzzles", _answering(puzzles)),
        Route("/api/puzzles/{puzzle_id}", _answering(puzzle)),
        Route("/api/search", _answering(search_start), methods=["POST"]),
        Route("/api/search/{job}", _answering(search_job), methods=["GET", "DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan,
                     exception_handlers={404: _http_error, 405: _http_error})


async def _http_error(request: Request, exc: Exception) -> Response:
    """A 404 or 405: JSON under /api/ (every API answer is JSON), plain text elsewhere."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": f"{exc.detail}: {request.method} {request.url.path}"},
                            status_code=exc.status_code, headers=exc.headers)
    return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)


def listen(db_path: str | Path, host: str = "127.0.0.1", port: int = 8000,
           proofs: tuple[tuple[str | Path, str | Path | None], ...] = (),
           progress: Progress | None = None) -> uvicorn.Server:
    """A server for the explorer, ready to ``run()``: the file has been opened (a missing
    or foreign one raises the store's error now), the address is free (else OSError) and
    the weak solutions ``proofs`` (proof file, check journal or None) are checked, from
    their journals without a search (else a ServiceError: `proof_claims`)."""
    Explorer(db_path).tables()
    with socket.create_server((host, port)):
        pass
    app = create_app(db_path, tuple(proof_claims(proofs, progress, search=False)))
    quiet_collector()
    return uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
