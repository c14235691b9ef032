"""The web explorer: its JSON API against the command line, and its pages in Chromium.

The API answers are compared with what `tablebase probe/moves/puzzles ... --json` print
for the same file; bad input must be a 400 carrying the command line's one-line message.
The browser tests drive Debian's Chromium through Playwright: they click cells and
compare the values shown with `probe`, undo, redo, reload permalinks, read the value
history chart's data, solve and fail a puzzle, search a hex4 position and stop a search,
and take the screenshots of docs/explorer.md. In CI (``CI`` set) a missing Chromium is a
failure, never a skip.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlencode

import httpx
import pytest
import uvicorn
from click.testing import CliRunner

import tablebase
from tablebase.cli.main import main
from tablebase.cli.sparro import probe_sparro
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.service.errors import USER_ERRORS
from tablebase.web.app import create_app
from tablebase.web.jobs import SearchJobs

CHROMIUM = Path("/usr/bin/chromium")
#: The browser tests take docs/explorer.md's screenshots. They are written into docs/img
#: only when ``TABLEBASE_SCREENSHOTS=docs`` is set, so an ordinary test run leaves the
#: checkout as it was; otherwise they go to a temporary folder.
DOCS_IMAGES = (Path(__file__).resolve().parent.parent / "docs" / "img"
               if os.environ.get("TABLEBASE_SCREENSHOTS") == "docs"
               else Path(tempfile.mkdtemp(prefix="tablebase-screenshots-")))
#: A nearly full hex4 position no table holds; the search proves a win in 9 for White.
HEX4_POSITION = "WB.W/WBW.B/BBWBB./..B.B.W/.W.W../BWW.W/W.BB W"


def cli(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args))
    return result


def cli_json(*args: str) -> Any:
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cli_error(*args: str) -> str:
    """The one line the command line prints on stderr for a user error (without 'Error: ')."""
    result = cli(*args)
    assert result.exit_code != 0
    line = result.stderr.strip()
    assert "\n" not in line, line
    return line.removeprefix("Error: ")


@pytest.fixture(scope="session")
def web_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Sparro standard and standard-no-compensation, The Smallholder on limping2 (the five
    rulesets) and a few puzzles."""
    path = str(tmp_path_factory.mktemp("web") / "web.sqlite")
    for args in (("solve", "sparro", "--variant", "standard"),
                 ("solve", "sparro", "--variant", NO_COMPENSATION),
                 ("solve", "smallholder", "--board", "limping2", "--all-rulesets"),
                 ("puzzles", "generate", "sparro", "--count", "3", "--min-depth", "3", "--seed", "3"),
                 ("puzzles", "generate", "smallholder", "--board", "limping2", "--count", "2", "--min-depth", "3",
                  "--seed", "2")):
        result = cli(*args, "--db", path, "-s")
        assert result.exit_code == 0, result.output
    return Path(path)


@pytest.fixture(scope="module")
def client(web_db: Path) -> Iterator[Any]:
    from starlette.testclient import TestClient

    with TestClient(create_app(web_db)) as test_client:
        yield test_client


# -- the JSON API ------------------------------------------------------------------------------

SPARRO_POSITIONS = ["............/......../....", "RBBRBR.BR.../......../....", "RRR.BB....../......../...."]
SMALLHOLDER_POSITIONS = ["../.../..../... B", "B./.W./..../... B", ".W/B.B/..W./B.W B"]


@pytest.mark.parametrize("position", SPARRO_POSITIONS)
def test_probe_sparro_is_the_cli_json(client: Any, web_db: Path, position: str) -> None:
    answer = client.get("/api/probe", params={"game": "sparro", "variant": "standard", "position": position})
    assert answer.status_code == 200
    assert answer.json() == cli_json("probe", "sparro", position, "--json", "--db", str(web_db))


@pytest.mark.parametrize("position", SMALLHOLDER_POSITIONS)
def test_probe_smallholder_is_the_cli_json(client: Any, web_db: Path, position: str) -> None:
    params = {"game": "smallholder", "board": "limping2", "ruleset": "stymie", "position": position}
    answer = client.get("/api/probe", params=params)
    assert answer.status_code == 200
    assert answer.json() == cli_json("probe", "smallholder", position, "--board", "limping2", "--ruleset",
                                     "stymie", "--json", "--db", str(web_db))


def test_probe_after_moves_is_the_probe_of_the_position_reached(client: Any, web_db: Path) -> None:
    after = client.get("/api/probe", params={"game": "sparro", "after": "0a1 0b1,0c1"}).json()
    assert after["position"].startswith("RB")
    assert after == cli_json("probe", "sparro", after["position"], "--json", "--db", str(web_db))
    moves = client.get("/api/moves", params={"game": "sparro", "after": "0a1 0b1,0c1"}).json()
    assert moves["position"] == after["position"]


def test_moves_are_the_cli_json(client: Any) -> None:
    for game, params, args in (
            ("sparro", {"position": "RRR.BB....../......../...."}, ["RRR.BB....../......../...."]),
            ("smallholder", {"board": "limping2", "after": "a1 b2"}, ["--board", "limping2", "--after", "a1 b2"])):
        answer = client.get("/api/moves", params={"game": game, **params})
        assert answer.status_code == 200
        assert answer.json() == cli_json("moves", game, *args, "--json")


def test_svg_cells_carry_their_names(client: Any) -> None:
    answer = client.get("/api/svg", params={"game": "smallholder", "board": "limping2"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    for name in ("a1", "b3", "d3"):
        assert f'class="cell" data-cell="{name}"' in answer.text


def test_puzzles_are_the_cli_json(client: Any, web_db: Path) -> None:
    listed = cli("puzzles", "list", "--json", "--db", str(web_db))
    expected = [json.loads(line) for line in listed.stdout.splitlines()]
    assert client.get("/api/puzzles").json() == expected
    sparro = client.get("/api/puzzles", params={"game": "sparro"}).json()
    assert sparro == [p for p in expected if p["game"] == "sparro"] and sparro
    one = client.get(f"/api/puzzles/{sparro[0]['id']}").json()
    assert one == cli_json("puzzles", "show", str(sparro[0]["id"]), "--json", "--db", str(web_db))
    # the command line's largest limit (numbers beyond SQLite's 64-bit integers were a 500)
    assert client.get("/api/puzzles", params={"limit": str(10 ** 9)}).json() == expected
    # the CLI's filters, and no parameter it does not know (one was silently ignored)
    deep = cli("puzzles", "list", "--json", "--min-depth", "4", "--max-depth", "6", "--db", str(web_db))
    filtered = client.get("/api/puzzles", params={"min_depth": 4, "max_depth": 6}).json()
    assert filtered == [json.loads(line) for line in deep.stdout.splitlines()] and 0 < len(filtered) < len(expected)
    unknown = client.get("/api/puzzles", params={"depth": 4})
    assert unknown.status_code == 400 and "unknown parameter" in unknown.json()["error"]



@pytest.mark.parametrize("text", ["0", str(10 ** 9 + 1), str(10 ** 30)])
def test_a_puzzle_limit_the_cli_refuses_is_a_400(client: Any, web_db: Path, text: str) -> None:
    """The limits `puzzles list --limit` takes (1 to 10^9), no others: limit=0 listed nothing."""
    answer = client.get("/api/puzzles", params={"limit": text})
    assert answer.status_code == 400
    assert answer.json() == {"error": f"limit must be a whole number from 1 to 1000000000: {text!r}"}
    line = cli_error("puzzles", "list", "--limit", text, "--db", str(web_db))
    assert line.startswith(f"Invalid value for '--limit': {text} is not in the range 1<=x<=1000000000")


@pytest.mark.parametrize("name", ["min_depth", "max_depth"])
def test_a_puzzle_depth_the_cli_refuses_is_a_400(client: Any, web_db: Path, name: str) -> None:
    """The depths `puzzles list --min-depth/--max-depth` take (0 to 1000), no others:
    min_depth=1001 listed nothing and max_depth=1001 everything."""
    answer = client.get("/api/puzzles", params={name: "1001"})
    assert answer.status_code == 400
    assert answer.json() == {"error": f"{name} must be a whole number from 0 to 1000: '1001'"}
    option = "--" + name.replace("_", "-")
    assert cli_error("puzzles", "list", option, "1001", "--db", str(web_db)).startswith(
        f"Invalid value for '{option}': 1001 is not in the range 0<=x<=1000")


def test_an_empty_depth_range_is_a_400(client: Any) -> None:
    answer = client.get("/api/puzzles", params={"min_depth": "9", "max_depth": "3"})
    assert answer.status_code == 400 and answer.json() == {"error": "min_depth 9 is more than max_depth 3"}


def test_huge_puzzle_filters_mean_what_they_say(web_db: Path) -> None:
    """In Python too, numbers beyond SQLite's 64-bit integers select as the numbers
    themselves do (they were an OverflowError)."""
    with tablebase.open(web_db) as tb:
        everything = tb.puzzles()
        assert everything and tb.puzzles(limit=10 ** 30) == everything
        assert tb.puzzles(min_depth=10 ** 30) == [] and tb.puzzles(max_depth=10 ** 30) == everything

@pytest.mark.parametrize("params, cli_args", [
    ({"game": "sparro", "position": "RRRR/..."}, ["probe", "sparro", "RRRR/..."]),
    ({"game": "sparro", "position": "R" * 500}, ["probe", "sparro", "R" * 500]),
    # an unknown variant: the problem, the text and the choices, in the same words
    ({"game": "sparro", "variant": "nope"}, ["probe", "sparro", "--variant", "nope"]),
    ({"game": "smallholder", "position": "../.../..../... X"}, ["probe", "smallholder", "../.../..../... X"]),
    ({"game": "smallholder", "board": "hex9"}, ["probe", "smallholder", "--board", "hex9"]),
    ({"game": "smallholder", "board": "limping2", "rules": "capture=sometimes"},
     ["probe", "smallholder", "--board", "limping2", "--rules", "capture=sometimes"]),
])
def test_bad_input_is_a_400_with_the_cli_message(client: Any, web_db: Path, params: dict[str, str],
                                                 cli_args: list[str]) -> None:
    answer = client.get("/api/probe", params=params)
    assert answer.status_code == 400
    # the web names the file as it was given to the server, which is the path the CLI got
    # here; a bad option's message is the CLI's usage error's ("Invalid value for '--board':
    # MESSAGE (see ... --help)"), a bad position's the whole line
    line = cli_error(*cli_args, "--db", str(web_db))
    message = answer.json()["error"]
    assert message == line if "position" in params else f": {message} (see " in line


@pytest.mark.parametrize("game, options, after, number, token", [
    ("smallholder", {"board": "limping2"}, "a1 a1", 2, "a1"),
    ("sparro", {}, "0a1,1a1", 2, "1a1"),
    ("sparro", {"position": "RRR.BB....../......../...."}, "0d1", 1, "0d1"),
])
def test_an_illegal_move_after_names_it(client: Any, game: str, options: dict[str, str], after: str, number: int,
                                        token: str) -> None:
    for endpoint in ("/api/probe", "/api/moves", "/api/svg"):
        answer = client.get(endpoint, params={"game": game, **options, "after": after})
        assert answer.status_code == 400
        message = answer.json()["error"]
        assert message.startswith(f"after move {number} is illegal (") and message.endswith(f": {token!r}")


@pytest.mark.parametrize("url", [
    "/api/probe", "/api/probe?game=chess", "/api/probe?game=sparro&colour=red",
    "/api/probe?game=sparro&variant=huge", "/api/probe?game=sparro&after=9z9",
    "/api/probe?game=sparro&after=0a1,0a1", "/api/probe?game=sparro&position=%00%ff",
    "/api/moves?game=smallholder&board=limping2&position=B./.../..../... B",
    "/api/svg?game=sparro&position=x", "/api/puzzles?grade=hard", "/api/puzzles/x", "/api/puzzles/999",
    "/api/puzzles?grade=9", "/api/puzzles?limit=-1", "/api/puzzles/99999999999999999999999",
    # digits other than ASCII ones: str.isdigit takes them, int refuses "²" (it was a 500)
    # and reads "١" as 1 (a puzzle or a move the client did not write)
    "/api/puzzles/%C2%B2", "/api/puzzles/%E2%91%A0", "/api/puzzles/%D9%A1", "/api/puzzles?limit=%D9%A1",
    "/api/puzzles?limit=+1", "/api/puzzles?limit=", "/api/probe?game=sparro&after=%D9%A1",
    # a parameter given twice, or one an address does not take
    "/api/probe?game=sparro&game=smallholder", "/api/fairness?bogus=1", "/api/games?bogus=1",
])
def test_bad_requests_are_400_never_500(client: Any, url: str) -> None:
    answer = client.get(url)
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message


@pytest.mark.parametrize("params", [
    {"game": "sparro", "position": ""}, {"game": "sparro", "variant": ""},
    {"game": "smallholder", "board": ""}, {"game": "smallholder", "board": "limping2", "ruleset": ""},
    {"game": "smallholder", "board": "limping2", "rules": ""},
])
def test_an_empty_parameter_is_not_the_default(client: Any, web_db: Path, params: dict[str, str]) -> None:
    """An empty position or rules option is refused with the Python API's message (the
    command line's too, for a position), rather than read as "the start" or "the default rules"."""
    options = {name: value for name, value in params.items() if name not in ("game", "position")}
    with pytest.raises(USER_ERRORS) as error:
        with tablebase.open(web_db) as tb:
            tb.probe(params["game"], params.get("position"), **options)
    for endpoint in ("/api/probe", "/api/moves"):
        answer = client.get(endpoint, params=params)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == str(error.value)
    if "position" in params:
        assert str(error.value) == cli_error("probe", params["game"], "", "--db", str(web_db))


def test_api_errors_of_routing_are_json(client: Any) -> None:
    """Every answer under /api/ is JSON, also "no such address" and "not this method"."""
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.json()["error"] == "Not Found: GET /api/nothing"
    wrong = client.put("/api/probe")
    assert wrong.status_code == 405 and wrong.json()["error"].startswith("Method Not Allowed")
    page = client.get("/nothing")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/plain")


def played_out(position: str, **options: str) -> tuple[list[str], str]:
    """The first legal move at each ply from ``position`` to the end: the moves and the
    finished position."""
    with tablebase.open(Path(tempfile.mkdtemp()) / "none.sqlite", mode="w") as tb:
        reached = tb.position("smallholder", position, **options)
        line = []
        while reached.legal_moves:
            line.append(reached.legal_moves[0])
            reached = reached.play(line[-1])
    return line, reached.text


def test_a_position_no_table_holds_is_answered_from_the_rules(client: Any, web_db: Path) -> None:
    """No bad input, so no 400 (the page logged one for every such position): the probe's
    keys, from the rules alone, and ``no_table`` saying why (the table probe's error)."""
    answer = client.get("/api/probe", params={"game": "smallholder", "position": HEX4_POSITION})
    assert answer.status_code == 200
    with tablebase.open(web_db) as tb, pytest.raises(USER_ERRORS) as why:
        tb.probe("smallholder", HEX4_POSITION)
    position = tablebase.open(web_db).position("smallholder", HEX4_POSITION)
    assert answer.json() == {
        "position": HEX4_POSITION, "to_move": "W", "rules": "nibbler@hex4", "source": "rules", "value": "unknown",
        "remoteness": None, "pv": [], "at_least": None, "no_table": str(why.value),
        "moves": [{"cell": cell, "name": name, "value": "unknown", "remoteness": None}
                  for cell, name in sorted((position._engine.parse_move(n), n) for n in position.legal_moves)]}
    # a variant the file lacks: the command line's error is the reason
    start = "............/......../...."
    extended = client.get("/api/probe", params={"game": "sparro", "variant": "extended", "position": start}).json()
    assert extended["no_table"] == cli_error("probe", "sparro", start, "--variant", "extended", "--db", str(web_db))
    assert extended["value"] == "unknown" and extended["source"] == "rules"
    # a finished game's value is the rules' own: what the search answers
    line, finished = played_out(HEX4_POSITION)
    over = client.get("/api/probe", params={"game": "smallholder", "position": HEX4_POSITION, "after": " ".join(line)})
    assert over.status_code == 200
    searched = cli_json("probe", "smallholder", finished, "--search", "--json")
    assert over.json() == {**searched, "source": "rules", "no_table": over.json()["no_table"]}
    assert (searched["value"], searched["remoteness"]) == ("loss", 0)
    # bad input is still a 400, with its one line and nothing else
    bad = client.get("/api/probe", params={"game": "smallholder", "board": "hex4", "position": "x"})
    assert bad.status_code == 400 and list(bad.json()) == ["error"] and "'x'" in bad.json()["error"]


def poll_job(client: Any, job: str, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = client.get(f"/api/search/{job}").json()
        if state["status"] != "searching":
            return state
        time.sleep(0.2)
    raise AssertionError(f"search job {job} still running after {timeout} s")


@pytest.mark.slow
def test_background_search_answers_as_probe_search(client: Any, web_db: Path) -> None:
    started = client.post("/api/search", params={"game": "smallholder", "position": HEX4_POSITION})
    assert started.status_code == 200 and started.json()["status"] == "searching"
    state = poll_job(client, started.json()["job"])
    assert state["status"] == "done"
    assert state["answer"] == cli_json("probe", "smallholder", HEX4_POSITION, "--search", "--json")
    assert state["answer"]["value"] == "win" and state["answer"]["remoteness"] == 9


def test_background_search_stops(client: Any) -> None:
    started = client.post("/api/search", params={"game": "smallholder", "board": "hex4"}).json()
    time.sleep(0.5)
    stopped = client.delete(f"/api/search/{started['job']}").json()
    assert stopped["status"] == "stopped"
    assert client.get(f"/api/search/{started['job']}").json()["status"] == "stopped"
    assert client.get("/api/search/12345").status_code == 404


def test_an_abandoned_search_is_killed_without_a_request(web_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search nobody polls (its page was closed) is killed by the watcher thread: it was
    found only at the next request, and kept the cores busy until then."""
    from tablebase.web import jobs as jobs_module

    monkeypatch.setattr(jobs_module, "ABANDON_SECONDS", 0.5)
    monkeypatch.setattr(jobs_module, "REAP_SECONDS", 0.2)
    jobs = SearchJobs(str(web_db))
    try:
        job = jobs.start({"game": "smallholder", "board": "hex4"})["job"]  # the start: far beyond a second
        process = jobs._jobs[job].process
        deadline = time.monotonic() + 20
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert process.poll() is not None, "the abandoned search still runs"
        assert jobs.status(job)["status"] == "stopped"
    finally:
        jobs.close()


def test_a_search_request_longer_than_an_argument_may_be(web_db: Path) -> None:
    """A request reaches its search process on stdin: as a command-line argument, one
    longer than the system allows (128 KB) was a 500. Here the moves are 40,000 control
    characters (spaces to the parser; six characters each in JSON) before one move."""
    jobs = SearchJobs(str(web_db))
    try:
        request = {"game": "smallholder", "board": "limping2", "after": "\x1c" * 40_000 + "a1"}
        assert len(json.dumps(request)) > 200_000
        job = jobs.start(request)["job"]
        deadline = time.monotonic() + 120
        while (state := jobs.status(job))["status"] == "searching" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert state["status"] == "done", state
        with tablebase.open(web_db) as tb:
            expected = tb.position("smallholder", board="limping2").play("a1").text
        assert state["answer"]["position"] == expected and state["answer"]["source"] == "search"
    finally:
        jobs.close()


def test_background_search_refuses_bad_positions_at_once(client: Any) -> None:
    answer = client.post("/api/search", params={"game": "smallholder", "position": "nonsense"})
    assert answer.status_code == 400 and "nonsense" in answer.json()["error"]


# -- a real server ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(web_db: Path) -> Iterator[str]:
    """The explorer on a loopback port, in a thread of this process."""
    port = free_port()
    config = uvicorn.Config(create_app(web_db), host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(10)


@pytest.mark.slow
def test_many_readers_while_a_solve_writes(server: str, web_db: Path) -> None:
    """Eight clients probe at once while `solve` writes another table into the same file."""
    expected = {p: cli_json("probe", "sparro", p, "--json", "--db", str(web_db)) for p in SPARRO_POSITIONS}
    solve = subprocess.Popen([sys.executable, "-c", "from tablebase.cli.main import main; main()", "solve",
                              "sparro", "--variant", "extended", "--db", str(web_db), "-s"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)  # the solve is writing tiers now

        def reader(i: int) -> list[tuple[int, Any]]:
            with httpx.Client(base_url=server, timeout=30) as http:
                out = []
                for j in range(25):
                    position = SPARRO_POSITIONS[(i + j) % len(SPARRO_POSITIONS)]
                    answer = http.get("/api/probe", params={"game": "sparro", "position": position})
                    out.append((answer.status_code, answer.json()))
                return out

        with ThreadPoolExecutor(8) as pool:
            results = [r for chunk in pool.map(reader, range(8)) for r in chunk]
        assert solve.poll() is None, "the solve ended before the readers did; the test proves nothing"
    finally:
        solve.terminate()
        solve.wait(30)
    assert len(results) == 200
    assert all(status == 200 for status, _ in results), [r for r in results if r[0] != 200][:2]
    for _, answer in results:
        assert answer == expected[answer["position"]]


# -- the pages in Chromium -------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI: .ci/run installs it with apt-get")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, errors


def open_page(page: Any, server: str, path: str, **params: str) -> None:
    page.goto(f"{server}{path}" + (f"?{urlencode(params)}" if params else ""))
    wait_ready(page)


def wait_ready(page: Any) -> None:
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)


def after_click(page: Any, selector: str) -> None:
    """Click, then wait until the page has drawn the new state."""
    page.evaluate("document.body.dataset.ready = 'false'")
    page.click(selector)
    wait_ready(page)


def shown_cells(page: Any) -> dict[str, tuple[str, int | None]]:
    """Each legal cell's value and remoteness as the board shows them."""
    cells = page.eval_on_selector_all(
        "#picture .legal", "els => els.map(e => [e.dataset.move, e.dataset.value, e.dataset.remoteness])")
    return {name: (value, int(plies) if plies != "" else None) for name, value, plies in cells}


def probe_cells(answer: dict[str, Any]) -> dict[str, tuple[str, int | None]]:
    return {m["name"]: (m["value"], m["remoteness"]) for m in answer["moves"]}


def shown_move_list(page: Any) -> list[str]:
    return page.eval_on_selector_all("#moves tbody tr", "rows => rows.map(r => r.dataset.move)")


def test_board_shows_the_probe_and_plays_clicked_cells(page: Any, server: str, web_db: Path) -> None:
    db = ["--db", str(web_db)]
    open_page(page, server, "/", game="sparro", variant="standard")
    start = cli_json("probe", "sparro", "--json", *db)
    assert shown_cells(page) == probe_cells(start)
    assert shown_move_list(page) == [m["name"] for m in start["moves"]]
    assert "Red to move: win in 21" in page.inner_text("#status")
    assert page.inner_text("#pv") == " ".join(start["pv"]) and len(start["pv"]) == 21

    after_click(page, '#picture .legal[data-move="0a1"]')
    assert "moves=0a1" in page.url
    first = cli_json("probe", "sparro", "R.........../......../....", "--json", *db)
    assert page.input_value("#position") == first["position"]
    assert shown_cells(page) == probe_cells(first)

    after_click(page, f'#picture .legal[data-move="{first["moves"][-1]["name"]}"]')
    second_position = page.input_value("#position")
    second = cli_json("probe", "sparro", second_position, "--json", *db)
    assert shown_cells(page) == probe_cells(second)

    after_click(page, "#undo")
    assert page.input_value("#position") == first["position"] and shown_cells(page) == probe_cells(first)
    assert page.url.endswith("moves=0a1")
    after_click(page, "#redo")
    assert page.input_value("#position") == second_position

    # the permalink: a reload and a fresh tab show the same game
    link = page.url
    page.reload()
    wait_ready(page)  # a reload starts a fresh page: ready is unset until it has drawn
    assert page.input_value("#position") == second_position
    assert len(page.query_selector_all("#played li")) == 2
    page.evaluate("document.body.dataset.ready = 'false'")
    page.go_back()
    wait_ready(page)
    assert page.input_value("#position") == first["position"]

    page.goto(link)
    wait_ready(page)
    after_click(page, "#best")
    best = second["moves"][0]["name"]
    assert page.url.endswith(f"moves=0a1%2C{first['moves'][-1]['name']}%2C{best}") or page.url.endswith(
        f"moves=0a1,{first['moves'][-1]['name']},{best}")
    DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS_IMAGES / "explorer-sparro.png"))


def test_position_box_sets_a_position(page: Any, server: str, web_db: Path) -> None:
    open_page(page, server, "/", game="sparro")
    page.fill("#position", "RBBRBR.BR.../......../....")
    after_click(page, "#set-position")
    expected = cli_json("probe", "sparro", "RBBRBR.BR.../......../....", "--json", "--db", str(web_db))
    assert shown_cells(page) == probe_cells(expected)
    assert "position=RBBRBR.BR" in page.url
    page.fill("#position", "not a position")
    page.click("#set-position")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == cli_error("probe", "sparro", "not a position", "--db", str(web_db))


def test_every_variant_the_cli_probes_is_offered(page: Any, server: str, web_db: Path) -> None:
    variant = next(option for option in probe_sparro.params if option.name == "variant")
    open_page(page, server, "/", game="sparro")
    offered = page.eval_on_selector_all("#variant option", "options => options.map(o => o.value)")
    assert offered == list(variant.type.choices)
    # the hypothetical variant plays like the published ones: chosen, it shows its own values
    page.evaluate("document.body.dataset.ready = 'false'")
    page.select_option("#variant", NO_COMPENSATION)
    wait_ready(page)
    assert f"variant={NO_COMPENSATION}" in page.url
    db = ["--variant", NO_COMPENSATION, "--json", "--db", str(web_db)]
    assert shown_cells(page) == probe_cells(cli_json("probe", "sparro", *db))
    # where a full board without a line is a draw, not a win for Black
    position = ".........BR./......../...."
    open_page(page, server, "/", game="sparro", variant=NO_COMPENSATION, position=position)
    expected = cli_json("probe", "sparro", position, *db)
    assert shown_cells(page) == probe_cells(expected)
    assert ("draw", None) in probe_cells(expected).values()
    assert shown_cells(page) != probe_cells(cli_json("probe", "sparro", position, "--json", "--db", str(web_db)))


def test_value_history_marks_the_moves_that_changed_the_value(page: Any, server: str, web_db: Path) -> None:
    db = ["--db", str(web_db), "--board", "limping2"]
    # a1 throws Black's win away; b2 (White's slowest loss) hands it back
    open_page(page, server, "/", game="smallholder", board="limping2", ruleset="nibbler", moves="a1,b2")
    points = json.loads(page.get_attribute("#chart", "data-points"))
    positions = ["../.../..../... B", "B./.../..../... W", "B./.W./..../... B"]
    probes = [cli_json("probe", "smallholder", p, "--json", *db) for p in positions]
    assert [p["position"] for p in points] == positions
    # values for the first player (Black): win, loss (White to move wins), win
    for point, answer in zip(points, probes):
        for_black = answer["value"] if answer["to_move"] == "B" else {"win": "loss", "loss": "win"}[answer["value"]]
        assert (point["value"], point["remoteness"]) == (for_black, answer["remoteness"])
    assert [p["changed"] for p in points] == [False, True, True]
    dots = page.eval_on_selector_all("#chart .point", "els => els.map(e => [e.dataset.ply, e.dataset.changed])")
    assert dots == [["0", "false"], ["1", "true"], ["2", "true"]]
    assert len(page.query_selector_all("#chart .changed-ring")) == 2
    a1 = next(m for m in probes[0]["moves"] if m["name"] == "a1")
    assert f"(win in {probes[0]['remoteness']} -> loss in {a1['remoteness']})" in page.inner_text("#played")
    page.screenshot(path=str(DOCS_IMAGES / "explorer-smallholder.png"), full_page=True)


def test_hex4_positions_are_searched_in_the_background(page: Any, server: str) -> None:
    # a position no table holds is no error: the page logged a 400 for each
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    open_page(page, server, "/", game="smallholder", board="hex4", position=HEX4_POSITION)
    assert "No table holds this position" in page.inner_text("#status")
    assert console == []
    page.wait_for_function("document.getElementById('search-status').textContent.startsWith('search:')",
                           timeout=120_000)
    expected = cli_json("probe", "smallholder", HEX4_POSITION, "--search", "--json")
    assert page.inner_text("#search-status").startswith("search: win in 9")
    wait_ready(page)
    page.wait_for_function("document.querySelectorAll('#picture .legal.win').length > 0")
    assert shown_cells(page) == probe_cells(expected)

    open_page(page, server, "/", game="smallholder", board="hex4")
    page.wait_for_selector("#search-stop:not([hidden])")
    assert page.inner_text("#search-status").startswith("searching...")
    page.click("#search-stop")
    assert page.inner_text("#search-status").startswith("search stopped: unknown")
    # another game: the search line was the hex4 position's, it goes
    page.evaluate("document.body.dataset.ready = 'false'")
    page.select_option("#game", "sparro")
    wait_ready(page)
    assert page.is_hidden("#search")


def test_a_finished_game_without_a_table_has_its_value_on_the_chart(page: Any, server: str) -> None:
    """The rules alone say who won a finished hex4 game (the side to move cannot move and
    has lost): its point is that result, not grey."""
    line, finished = played_out(HEX4_POSITION)
    searched = cli_json("probe", "smallholder", finished, "--search", "--json")
    open_page(page, server, "/", game="smallholder", board="hex4", position=HEX4_POSITION, moves=",".join(line))
    assert page.input_value("#position") == finished
    last = json.loads(page.get_attribute("#chart", "data-points"))[-1]
    for_black = searched["value"] if searched["to_move"] == "B" else {"win": "loss", "loss": "win"}[searched["value"]]
    assert (last["value"], last["remoteness"]) == (for_black, 0) and searched["value"] == "loss"
    assert page.get_attribute(f'#chart .point[data-ply="{len(line)}"]', "class") == f"point {for_black}"
    assert page.inner_text("#status") == f"Game over: {'White' if searched['to_move'] == 'W' else 'Black'} loses"


def test_a_double_click_plays_one_move(page: Any, server: str) -> None:
    """A second click while a move loads was a second move: the game held 0b1 twice, its
    permalink broke. Space on a focused button presses the button, not "best move"."""
    open_page(page, server, "/", game="sparro", variant="standard")
    page.evaluate("document.body.dataset.ready = 'false'")
    page.dblclick('#picture .legal[data-move="0b1"]')
    wait_ready(page)
    page.wait_for_timeout(500)  # a second move would have arrived by now
    assert page.eval_on_selector_all("#played li", "items => items.map(i => i.textContent)") == ["0b1"]
    assert page.url.endswith("moves=0b1")
    page.focus("#undo")
    page.evaluate("document.body.dataset.ready = 'false'")
    page.keyboard.press(" ")
    wait_ready(page)
    assert "moves=" not in page.url and page.input_value("#position") == "............/......../...."


def focused_cell(page: Any) -> list[str | None]:
    """The focused element's move, role and accessible name (the cell's name)."""
    return page.evaluate("(e => [e.dataset.move, e.getAttribute('role'), e.getAttribute('aria-label')])"
                         "(document.activeElement)")


def test_cells_are_played_from_the_keyboard(page: Any, server: str, web_db: Path) -> None:
    """Tab reaches the board's cells, each a button named by its cell; Enter and Space play
    the focused cell (Space there is the cell's, not "play the best move")."""
    start = cli_json("probe", "sparro", "--json", "--db", str(web_db))
    open_page(page, server, "/", game="sparro", variant="standard")
    page.focus("#start-position")  # the last control before the board
    page.keyboard.press("Tab")
    name = focused_cell(page)[0]
    assert name in {m["name"] for m in start["moves"]}
    assert focused_cell(page) == [name, "button", name]
    page.evaluate("document.body.dataset.ready = 'false'")
    page.keyboard.press("Enter")
    wait_ready(page)
    assert page.url.endswith(f"moves={name}")
    after = cli_json("probe", "sparro", page.input_value("#position"), "--json", "--db", str(web_db))
    worst = after["moves"][-1]["name"]
    assert worst != after["moves"][0]["name"]
    page.focus(f'#picture .legal[data-move="{worst}"]')
    page.evaluate("document.body.dataset.ready = 'false'")
    page.keyboard.press(" ")
    wait_ready(page)
    page.wait_for_timeout(300)  # a second move ("best") would have arrived by now
    assert page.eval_on_selector_all("#played li", "items => items.map(i => i.textContent)") == [name, worst]


def test_custom_rules_are_not_shown_as_a_named_ruleset(page: Any, server: str, web_db: Path) -> None:
    """With custom rules the menu is their base ruleset (keys they leave out keep its
    values), never "the" ruleset, and the rules in effect are the service's reading."""
    open_page(page, server, "/", game="smallholder", board="limping2", rules="capture=groupwise")
    assert page.inner_text("#ruleset-label") == "Base ruleset" and page.input_value("#ruleset") == "nibbler"
    with tablebase.open(web_db) as tb:
        rules = tb.position("smallholder", board="limping2", ruleset="nibbler", rules="capture=groupwise").rules
    assert rules.endswith("capture=groupwise@limping2")
    assert page.inner_text("#rules-in-effect") == f"rules in effect: custom, {rules.removesuffix('@limping2')}"
    assert page.get_by_role("combobox", name="Base ruleset").input_value() == "nibbler"
    page.evaluate("document.body.dataset.ready = 'false'")
    page.fill("#rules", "")
    page.press("#rules", "Enter")
    wait_ready(page)
    assert page.inner_text("#ruleset-label") == "Ruleset" and page.is_hidden("#rules-in-effect")


def test_a_link_and_a_typed_position_that_cannot_be_played(page: Any, server: str, web_db: Path) -> None:
    """A link's third move illegal: the game stops before it and the error names it; a
    link's unknown variant is an error, not the default; a refused typed position stays
    in the box to be corrected."""
    open_page(page, server, "/", game="sparro", variant="standard", moves="0a1,0b1,0a1,0c1")
    assert page.inner_text("#error").startswith("move 3 of the link cannot be played, the game stops before it: ")
    assert len(page.query_selector_all("#played li")) == 2 and page.url.endswith("moves=0a1%2C0b1")
    page.goto(f"{server}/?game=sparro&variant=bogus")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "the link's variant is not one the explorer knows: 'bogus'; choose one above"
    open_page(page, server, "/", game="sparro")
    page.fill("#position", "RRRR")
    page.click("#set-position")
    page.wait_for_selector("#error:not([hidden])")
    assert page.input_value("#position") == "RRRR"


@pytest.mark.parametrize("path", ["/", "/puzzles", "/fairness"])
def test_pages_fit_a_phone(browser: Any, server: str, path: str) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 700})
    try:
        tab = context.new_page()
        tab.goto(f"{server}{path}")
        wait_ready(tab)
        assert tab.evaluate("document.documentElement.scrollWidth") <= 375
    finally:
        context.close()


def test_a_search_out_of_budget_says_what_its_settled_moves_prove(page: Any, server: str) -> None:
    """The page words an unknown answer's ``at_least`` as the command line does. The search
    job's answer is the exact one of HEX4_POSITION cut back to its best move (as a search
    out of budget after settling that move answers), served in place of a real job's."""
    exact = cli_json("probe", "smallholder", HEX4_POSITION, "--search", "--json")
    best = exact["moves"][0]
    assert best["value"] == "win"
    cut = {**exact, "value": "unknown", "remoteness": None, "pv": [],
           "moves": [best] + [{**m, "value": "unknown", "remoteness": None} for m in exact["moves"][1:]],
           "at_least": {"value": best["value"], "remoteness": best["remoteness"]}}
    canned_search(page, server, cut)
    open_page(page, server, "/", game="smallholder", board="hex4", position=HEX4_POSITION)
    page.wait_for_function("document.getElementById('search-status').textContent.startsWith('search:')")
    assert page.inner_text("#search-status") == (
        f"search: unknown (the search ran out of its budget; it settled 1 of the {len(cut['moves'])} moves; "
        f"a win in at most {best['remoteness']})")


def client_probe(page: Any, position: str, after: str) -> Any:
    """The API's probe of ``position`` after ``after``, fetched by the page itself."""
    return page.evaluate("async ([p, a]) => (await fetch('/api/probe?' + new URLSearchParams("
                         "{game: 'sparro', position: p, after: a}))).json()", [position, after])


def test_puzzle_trainer_fails_retries_hints_and_solves(page: Any, server: str, web_db: Path) -> None:
    puzzle = cli_json("puzzles", "list", "--game", "sparro", "--limit", "1", "--json", "--db", str(web_db))
    shown = cli_json("puzzles", "show", str(puzzle["id"]), "--json", "--db", str(web_db))
    open_page(page, server, "/puzzles")
    page.select_option("#puzzle-game", "sparro")
    page.wait_for_selector(f'#puzzle-list li[data-id="{puzzle["id"]}"]')
    after_click(page, f'#puzzle-list li[data-id="{puzzle["id"]}"]')
    assert f"win within {puzzle['depth']} plies" in page.inner_text("#puzzle-task")
    assert page.get_attribute("#picture", "data-position") == puzzle["position"]
    right = shown["tree"][puzzle["position"]]
    answer = cli_json("probe", "sparro", puzzle["position"], "--json", "--db", str(web_db))
    wrong = next(m for m in answer["moves"] if m["cell"] != right)

    page.focus(f'#picture .legal[data-move="{wrong["name"]}"]')  # played from the keyboard
    assert focused_cell(page) == [wrong["name"], "button", wrong["name"]]
    page.keyboard.press("Enter")
    page.wait_for_selector(".feedback.wrong")
    assert page.inner_text("#feedback").startswith(f"Wrong: {wrong['name']} is a {wrong['value']}")
    reply = client_probe(page, puzzle["position"], wrong["name"])
    assert reply == cli_json("probe", "sparro", reply["position"], "--json", "--db", str(web_db)) and reply["pv"]
    assert page.inner_text("#refutation") == f"Refutation: {wrong['name']} {' '.join(reply['pv'])}"
    page.click("#retry")
    assert page.inner_text("#feedback") == ""

    page.click("#hint")
    right_name = next(m["name"] for m in answer["moves"] if m["cell"] == right)
    assert page.get_attribute(f'#picture .legal[data-move="{right_name}"]', "class").split().count("hint") == 1

    for _ in range(puzzle["depth"]):  # play the solution tree's move in each position reached
        position = page.get_attribute("#picture", "data-position")
        if "Solved" in page.inner_text("#feedback"):
            break
        move = shown["tree"][position]
        names = cli_json("moves", "sparro", position, "--json")["moves"]
        name = next(m["name"] for m in names if m["cell"] == move)
        after_click(page, f'#picture .legal[data-move="{name}"]')
    assert "Solved!" in page.inner_text("#feedback")
    assert page.inner_text("#solved-count") == "1"
    assert json.loads(page.evaluate("localStorage.getItem('tablebase-solved-puzzles')")) == [puzzle["id"]]
    page.screenshot(path=str(DOCS_IMAGES / "puzzles.png"))


def test_another_game_replaces_the_puzzle_shown(page: Any, server: str, web_db: Path) -> None:
    """The puzzle shown is one of those listed: another game shows that game's first
    puzzle (it kept the old one), and filters that list none clear the trainer."""
    listed = [json.loads(line) for line in cli("puzzles", "list", "--json", "--db", str(web_db)).stdout.splitlines()]
    first = {game: next(p for p in listed if p["game"] == game) for game in ("sparro", "smallholder")}
    open_page(page, server, "/puzzles")
    assert page.inner_text("#puzzle-title").startswith(f"Puzzle #{first['sparro']['id']} (sparro ")
    page.select_option("#puzzle-game", "smallholder")
    page.wait_for_function(f"document.getElementById('puzzle-title').textContent.startsWith("
                           f"'Puzzle #{first['smallholder']['id']} (smallholder ')")
    assert page.get_attribute("#picture", "data-position") == first["smallholder"]["position"]
    assert page.get_attribute("#puzzle-list li.active", "data-id") == str(first["smallholder"]["id"])
    grade = next(g for g in range(1, 6) if all(p["grade"] != g for p in listed if p["game"] == "smallholder"))
    page.select_option("#puzzle-grade", str(grade))
    page.wait_for_function("document.getElementById('puzzle-title').textContent === ''")
    assert page.query_selector_all("#puzzle-list li") == [] and page.query_selector("#picture svg") is None
    assert page.inner_text("#puzzle-task") == "" and page.get_attribute("#picture", "data-position") is None


def test_fairness_is_the_verify_json_for_the_tables_held(client: Any, web_db: Path) -> None:
    report = client.get("/api/fairness").json()
    lines = cli("verify", "smallholder", "--board", "limping2", "--json", "--db", str(web_db)).stdout.splitlines()
    expected = [json.loads(line) for line in lines]  # one claim per line
    assert report["claims"] == expected
    # Sparro's claims need variants this file lacks, hex3 needs its tables: listed, not solved
    assert [line.split(" not checked")[0] for line in report["not_checked"]] == [
        "Sparro claims", "Smallholder claims on hex3"]
    assert all("tablebase verify" in line for line in report["not_checked"])


def test_fairness_page_renders_the_report(page: Any, server: str, client: Any) -> None:
    report = client.get("/api/fairness").json()
    open_page(page, server, "/fairness")
    shown = page.eval_on_selector_all(".claim", "els => els.map(e => [e.dataset.id, "
                                      "e.querySelector('.verdict').textContent, e.querySelector('.summary').textContent])")
    assert shown == [[c["id"], c["verdict"], c["summary"]] for c in report["claims"]]
    assert page.inner_text("#claims").count("not checked") == len(report["not_checked"])
    page.screenshot(path=str(DOCS_IMAGES / "fairness.png"))


def test_fairness_with_a_weak_solution_is_what_verify_with_it_prints(web_db: Path, tmp_path: Path) -> None:
    """The report adds the first-player claims of checked proofs (checked before the
    server starts), as `verify --proof` does; a proof that is not one stops the start."""
    from starlette.testclient import TestClient

    from tablebase.service.errors import ServiceError
    from tablebase.service.verify import proof_claims
    from tablebase.web.app import listen

    weak = tmp_path / "weak.sqlite"
    proof = tmp_path / "limping2.proof.tsv"
    for args in (("solve", "smallholder", "--board", "limping2", "--weak", "--job-budget", "1000",
                  "--job-max-empty", "9", "--db", str(weak)),
                 ("proof", "export", "smallholder", "--board", "limping2", "--db", str(weak), "-o", str(proof))):
        assert cli(*args, "-s").exit_code == 0
    with TestClient(create_app(web_db, tuple(proof_claims(((proof, None),), search=False)))) as with_proof:
        report = with_proof.get("/api/fairness").json()
    lines = cli("verify", "smallholder", "--board", "limping2", "--proof", str(proof), "--json",
                "--db", str(web_db)).stdout.splitlines()
    assert report["claims"] == [json.loads(line) for line in lines]
    confirmed = [c for c in report["claims"] if "weak_solution" in c["evidence"]]
    assert [c["id"] for c in confirmed] == ["smallholder-first-player:nibbler:limping2"]
    bad = tmp_path / "bad.proof.tsv"
    bad.write_text("# not a proof\n")
    with pytest.raises(ServiceError, match="not a valid proof"):
        listen(web_db, "127.0.0.1", free_port(), ((bad, None),))
    assert "not a valid proof" in cli_error("serve", "--db", str(web_db), "--proof", str(bad),
                                            "--port", str(free_port()))


def test_a_file_without_puzzles_lists_none(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    path = tmp_path / "bare.sqlite"
    assert cli("solve", "smallholder", "--board", "limping2", "--db", str(path), "-s").exit_code == 0
    path.chmod(0o444)  # read-only, as a server may be given it
    with TestClient(create_app(path)) as bare:
        assert bare.get("/api/puzzles").json() == []
        missing = bare.get("/api/puzzles/1")
        assert missing.status_code == 400 and "1" in missing.json()["error"]
        assert bare.get("/api/probe", params={"game": "smallholder", "board": "limping2"}).status_code == 200


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from tablebase.cli.main import main; main()", "serve", *args]


def test_serve_starts_the_explorer(web_db: Path) -> None:
    port = free_port()
    server = subprocess.Popen(serve_command("--db", str(web_db), "--port", str(port)), stderr=subprocess.PIPE,
                              text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/api/probe", params={"game": "sparro"}, timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        assert answer.json() == cli_json("probe", "sparro", "--json", "--db", str(web_db))
        assert "<title>tablebase explorer</title>" in httpx.get(f"http://127.0.0.1:{port}/").text
        assert httpx.get(f"http://127.0.0.1:{port}/static/app.js").status_code == 200
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert err.splitlines()[0] == (f"tablebase explorer on http://127.0.0.1:{port}/ (file {str(web_db)!r}; "
                                   f"Ctrl-C to stop)")


def test_serve_refuses_a_missing_file_and_a_taken_port(tmp_path: Path, web_db: Path) -> None:
    missing = cli("serve", "--db", str(tmp_path / "none.sqlite"))
    assert missing.exit_code == 1 and missing.stderr.count("\n") == 1
    assert "no tablebase at" in missing.stderr
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        busy = cli("serve", "--db", str(web_db), "--port", str(port))
    assert busy.exit_code == 1 and busy.stderr.startswith(f"Error: cannot listen on 127.0.0.1:{port} (")
    assert busy.stderr.count("\n") == 1


def test_puzzle_sheet_keeps_solutions_apart_and_pictures_in_their_boxes(page: Any, web_db: Path,
                                                                        tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.html"
    assert cli("puzzles", "export", "--format", "html", "--output", str(sheet), "--db", str(web_db)).exit_code == 0
    listed = [json.loads(line) for line in cli("puzzles", "list", "--json", "--db", str(web_db)).stdout.splitlines()]
    assert {p["game"] for p in listed} == {"sparro", "smallholder"}
    page.goto(sheet.as_uri())
    cards = page.eval_on_selector_all(".puzzle", """els => els.map(e => {
        const box = e.getBoundingClientRect(), picture = e.querySelector('svg').getBoundingClientRect();
        return [e.id, e.innerText.includes('Solution'), picture.width > 100,
                picture.left >= box.left - 0.5 && picture.right <= box.right + 0.5];
    })""")
    assert cards == [[f"puzzle-{p['id']}", False, True, True] for p in listed]
    solutions = page.eval_on_selector_all(".solutions li", "els => els.map(e => e.id)")
    assert solutions == [f"solution-{p['id']}" for p in listed]
    # every solution comes after every puzzle
    last_card = page.eval_on_selector(".puzzle:last-of-type", "e => e.getBoundingClientRect().bottom")
    assert page.eval_on_selector(".solutions", "e => e.getBoundingClientRect().top") >= last_card


def test_the_server_keeps_the_garbage_collector_quiet() -> None:
    """What `tablebase serve` loads before serving is moved out of the collector's sight,
    and young collections run less often (fewer pauses that stop every request)."""
    import gc

    from tablebase.web.app import SERVER_GC_THRESHOLD, quiet_collector

    before = gc.get_threshold()
    try:
        quiet_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (SERVER_GC_THRESHOLD, *before[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


# -- exploratory-testing findings: best move, one move at a time, links, stale answers -------


def test_a_position_whose_every_move_ends_the_game_is_unknown_without_a_table(client: Any) -> None:
    """The docs and `rules_json` promised such a position its value from the rules; the
    answer is "unknown", its moves settled and ``at_least`` what they prove: the docs say so
    now, and the page has no text for the value that never comes."""
    line, _ = played_out(HEX4_POSITION)
    answer = client.get("/api/probe", params={"game": "smallholder", "position": HEX4_POSITION,
                                              "after": " ".join(line[:-1])}).json()
    assert answer["moves"] and all(m["value"] != "unknown" and m["remoteness"] == 1 for m in answer["moves"])
    assert (answer["source"], answer["value"], answer["remoteness"]) == ("rules", "unknown", None)
    assert answer["at_least"] == {"value": answer["moves"][0]["value"], "remoteness": 1}
    root = Path(__file__).resolve().parent.parent
    docs = " ".join((root / "docs" / "explorer.md").read_text().split())
    assert "as has a position whose every move ends the game" not in docs
    assert 'any other position is `"value": "unknown"`, even one whose every move ends the game' in docs
    from tablebase.service.probing import rules_json
    assert "even one whose every move ends the game" in " ".join((rules_json.__doc__ or "").split())
    assert "every move ends the game" not in (root / "web" / "static" / "app.js").read_text()


def canned_search(page: Any, server: str, answer: dict[str, Any]) -> None:
    """Serve ``answer`` as the background search's, at once."""
    canned = {"/api/search": {"job": "1", "status": "searching"},
              "/api/search/1": {"job": "1", "status": "done", "answer": answer, "seconds": 30.0}}

    def fulfil(route: Any) -> None:
        path = route.request.url.split("?")[0].split(server, 1)[1]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(canned[path]))

    page.route("**/api/search*", fulfil)
    page.route("**/api/search/*", fulfil)


@pytest.mark.parametrize("settled", [0, 1])
def test_best_move_is_played_only_when_known_to_be_best(page: Any, server: str, settled: int) -> None:
    """A search out of budget that settled none of the moves (or only one, a win: a bound,
    not the value) has no best move: the button is disabled and Space plays nothing. It
    played the first move listed."""
    exact = cli_json("probe", "smallholder", HEX4_POSITION, "--search", "--json")
    moves = [m if i < settled else {**m, "value": "unknown", "remoteness": None} for i, m in enumerate(exact["moves"])]
    cut = {**exact, "value": "unknown", "remoteness": None, "pv": [], "moves": moves,
           "at_least": None if not settled else {"value": moves[0]["value"], "remoteness": moves[0]["remoteness"]}}
    canned_search(page, server, cut)
    open_page(page, server, "/", game="smallholder", board="hex4", position=HEX4_POSITION)
    page.wait_for_function("document.getElementById('search-status').textContent.startsWith('search: unknown')")
    page.wait_for_function(f"document.querySelectorAll('#picture .legal.win').length === {settled}")
    assert page.is_disabled("#best")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    page.wait_for_timeout(500)  # a move would have arrived by now
    assert "moves=" not in page.url and page.query_selector_all("#played li") == []
    assert page.input_value("#position") == HEX4_POSITION
    # an exact answer has a best move: the button plays it
    page.unroute("**/api/search*")
    page.unroute("**/api/search/*")
    canned_search(page, server, exact)
    open_page(page, server, "/", game="smallholder", board="hex4", position=HEX4_POSITION)
    page.wait_for_function("!document.getElementById('best').disabled")
    after_click(page, "#best")
    played = page.eval_on_selector_all("#played li", "items => items.map(i => i.textContent)")
    assert played == [exact["moves"][0]["name"]]


def test_a_cell_pressed_again_before_the_new_board_is_drawn_plays_nothing(page: Any, server: str) -> None:
    """Enter pressed twice on a cell (or two quick clicks): the second press came after the
    move's probe but before the new board was drawn, and played the old cell in the new
    position, an "illegal move" error and a 400. The new board's picture is held back here
    until both presses are in."""
    open_page(page, server, "/", game="sparro", variant="standard")
    held: list[Any] = []
    page.route("**/api/svg*", lambda route: held.append(route))
    failed: list[int] = []
    page.on("response", lambda response: failed.append(response.status) if response.status >= 400 else None)
    for press in ("Enter", "click"):
        cell = '#picture .legal[data-move="0b1"]' if press == "Enter" else '#picture .legal[data-move="0c1"]'
        page.focus(cell)
        page.evaluate("document.body.dataset.ready = 'false'")
        if press == "Enter":
            page.keyboard.press("Enter")
        else:
            page.click(cell)
        while not held:  # the move's probe is in, its board not yet
            page.wait_for_timeout(10)
        if press == "Enter":
            page.keyboard.press("Enter")
        else:
            page.click(cell)
        page.wait_for_timeout(300)  # a second move's probe would have been answered by now
        held.pop().continue_()
        wait_ready(page)
        page.wait_for_timeout(200)
        assert not held
    assert page.eval_on_selector_all("#played li", "items => items.map(i => i.textContent)") == ["0b1", "0c1"]
    assert page.is_hidden("#error") and failed == []


def test_space_on_a_link_is_the_links_and_the_keyboard_keeps_the_board(page: Any, server: str) -> None:
    """Space on a focused link (the header's "Puzzles") played the best move; a move played
    from the keyboard left the focus on the page's body, the board lost."""
    open_page(page, server, "/", game="sparro", variant="standard")
    assert page.is_enabled("#best")
    page.focus('nav a[href="/puzzles"]')
    page.keyboard.press(" ")
    page.wait_for_timeout(500)  # a move would have arrived by now
    assert "moves=" not in page.url and page.query_selector_all("#played li") == []
    page.focus('#picture .legal[data-move="0b1"]')
    page.evaluate("document.body.dataset.ready = 'false'")
    page.keyboard.press("Enter")
    wait_ready(page)
    assert page.evaluate("document.getElementById('picture').contains(document.activeElement)")
    page.evaluate("document.body.dataset.ready = 'false'")
    page.keyboard.press(" ")  # on the board, not a cell: the best move
    wait_ready(page)
    assert len(page.query_selector_all("#played li")) == 2
    assert page.evaluate("document.getElementById('picture').contains(document.activeElement)")


def test_only_the_latest_game_asked_for_is_shown(page: Any, server: str) -> None:
    """Another game chosen, then the first again: the slower answer for the game left must
    not replace the one chosen last."""
    open_page(page, server, "/", game="sparro", variant="standard")
    held: list[Any] = []
    page.route("**/api/probe?game=smallholder*", lambda route: held.append(route))
    page.select_option("#game", "smallholder")
    while not held:
        page.wait_for_timeout(10)
    page.evaluate("document.body.dataset.ready = 'false'")
    page.select_option("#game", "sparro")
    wait_ready(page)
    held.pop().continue_()
    page.wait_for_timeout(500)
    assert "game=sparro" in page.url and page.input_value("#position") == "............/......../...."
    assert page.get_attribute("#picture", "data-position") == "............/......../...."


def test_puzzle_answers_after_a_game_switch_are_dropped(page: Any, server: str, web_db: Path) -> None:
    """The rules menu, the puzzle and the judgement of a move are the latest game's: a
    slower answer for the game left (its rules, a move made in its puzzle) is dropped."""
    listed = [json.loads(line) for line in cli("puzzles", "list", "--json", "--db", str(web_db)).stdout.splitlines()]
    labels = {game: sorted({p["rules"] for p in listed if p["game"] == game}) for game in ("sparro", "smallholder")}
    first = {game: next(p for p in listed if p["game"] == game) for game in ("sparro", "smallholder")}
    open_page(page, server, "/puzzles")
    held: list[Any] = []
    page.route("**/api/puzzles?game=smallholder", lambda route: held.append(route))
    page.select_option("#puzzle-game", "smallholder")
    while not held:
        page.wait_for_timeout(10)
    page.select_option("#puzzle-game", "sparro")
    page.wait_for_timeout(300)
    held.pop().continue_()
    page.wait_for_timeout(500)
    offered = page.eval_on_selector_all("#puzzle-rules option", "os => os.map(o => o.value)")
    assert sorted(offered[1:]) == labels["sparro"]
    assert page.inner_text("#puzzle-title").startswith(f"Puzzle #{first['sparro']['id']} (sparro ")
    page.unroute("**/api/puzzles?game=smallholder")
    # a move in the sparro puzzle, judged after the game was switched
    page.route("**/api/probe*", lambda route: held.append(route))
    move = cli_json("moves", "sparro", first["sparro"]["position"], "--json")["moves"][0]["name"]
    page.click(f'#picture .legal[data-move="{move}"]')
    while not held:
        page.wait_for_timeout(10)
    page.select_option("#puzzle-game", "smallholder")
    page.wait_for_function(f"document.getElementById('puzzle-title').textContent.startsWith("
                           f"'Puzzle #{first['smallholder']['id']} (smallholder ')")
    held.pop().continue_()
    page.wait_for_timeout(500)
    assert page.inner_text("#feedback") == "" and page.is_hidden("#retry")
    assert page.get_attribute("#picture", "data-position") == first["smallholder"]["position"]
