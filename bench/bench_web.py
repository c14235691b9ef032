"""Load test of the web explorer: /api/probe requests from concurrent clients on loopback.

Run:  python bench/bench_web.py [--db DB] [--requests 2000] [--clients 8]

Without --db, a fresh file gets Sparro standard and The Smallholder nibbler@limping2
solved into it (a few seconds). The server (what `tablebase serve` runs: `tablebase.web.app.listen`) runs in
its own process on 127.0.0.1; the clients are threads of this one, each with its own
HTTP connection, every request with a 10 s timeout. The positions are those of random
games (both games, every ply), so the probes touch many tiers. A request counts as an
error unless it answers 200 with the position asked about. Prints one JSON object; besides
the latencies it gives the CPU time the server process and the clients spent per request
(read from /proc on Linux, null elsewhere), which depends far less on other work on the
machine than the latencies do, and the `uptime` load averages at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tablebase.games.smallholder import Smallholder
from tablebase.games.sparro import Sparro

SERVER = """
import sys
from tablebase.web.app import listen
listen(sys.argv[1], "127.0.0.1", int(sys.argv[2])).run()  # what `tablebase serve` runs
"""


def random_positions(count: int, seed: int) -> list[dict[str, str]]:
    """Query parameters of the positions of random games, half Sparro, half Smallholder."""
    rng = random.Random(seed)
    games = [(Sparro("standard"), {"game": "sparro", "variant": "standard"}),
             (Smallholder("limping2", "nibbler"), {"game": "smallholder", "board": "limping2", "ruleset": "nibbler"})]
    found: list[dict[str, str]] = []
    while len(found) < count:
        game, params = games[len(found) % 2]
        pos = game.start()
        while True:
            found.append({**params, "position": game.format(pos)})
            moves = game.legal_moves(pos)
            if not moves or game.terminal_value(pos) is not None:
                break
            pos = game.play(pos, rng.choice(list(moves)))
    rng.shuffle(found)
    return found[:count]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a running process (Linux /proc), None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def solved_file() -> Path:
    path = Path(tempfile.mkdtemp()) / "web-bench.sqlite"
    for args in (["solve", "sparro", "--variant", "standard"], ["solve", "smallholder", "--board", "limping2"]):
        subprocess.run([sys.executable, "-c", "from tablebase.cli.main import main; main()", *args,
                        "--db", str(path), "-s"], check=True, stdout=subprocess.DEVNULL)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="tablebase file with sparro standard and nibbler@limping2")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    db = args.db or solved_file()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(db), str(port)])
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/api/games", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
        queries = random_positions(args.requests, args.seed)
        shares = [queries[i::args.clients] for i in range(args.clients)]

        def client(share: list[dict[str, str]]) -> list[tuple[float, bool]]:
            out = []
            with httpx.Client(base_url=base, timeout=10) as http:
                http.get("/api/games")  # connect before the clock starts
                for params in share:
                    started = time.perf_counter()
                    try:
                        answer = http.get("/api/probe", params=params)
                        ok = answer.status_code == 200 and answer.json()["position"] == params["position"]
                    except (httpx.HTTPError, ValueError, KeyError):
                        ok = False
                    out.append((time.perf_counter() - started, ok))
            return out

        server_cpu = process_cpu_seconds(server.pid)
        client_cpu = time.process_time()
        started = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            results = [r for chunk in pool.map(client, shares) for r in chunk]
        wall = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        server_after = process_cpu_seconds(server.pid)
        server_cpu = None if server_cpu is None or server_after is None else server_after - server_cpu
    finally:
        server.terminate()
        server.wait(10)
    latencies = sorted(seconds * 1000 for seconds, _ in results)
    print(json.dumps({
        "requests": len(results), "clients": args.clients,
        "errors": sum(1 for _, ok in results if not ok),
        "median_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 2),
        "max_ms": round(latencies[-1], 2),
        "requests_per_second": round(len(results) / wall, 1),
        "server_cpu_ms_per_request": None if server_cpu is None else round(server_cpu * 1000 / len(results), 2),
        "client_cpu_ms_per_request": round(client_cpu * 1000 / len(results), 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
