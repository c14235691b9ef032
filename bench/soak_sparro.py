"""Crash-safety soak: SIGKILL `tablebase solve sparro` at random moments, resume, repeat.

For each variant: one clean solve gives the reference checksums; then chains of
kill/resume cycles, each chain starting from an empty file, until the requested number
of kills landed while a solve was running. A kill's moment is uniform over the time the
run is expected to take: the clean solve's timeline (when each tier was stored) says
how long a resume with k tiers stored runs (start-up and enumeration, then the tiers
still missing), so kills land inside runs whatever is already stored. After every kill the file must open and every
stored tier must match its checksum; every chain must end with the clean solve's table
checksum and tier checksums, and `tablebase check` must pass on it. Then `tablebase puzzles
generate` is SIGKILLed the same way and run again until each chain stored its puzzles:
every puzzle printed before a kill must be stored, the tables must keep their checksums.
Finally one byte is
changed on disk inside stored blobs of a finished file, and `tablebase check` must
report each change.

    python bench/soak_sparro.py                       # 20 kills in extended, 10 in standard, 10 of puzzles
    python bench/soak_sparro.py --kills extended=20 --puzzle-kills 10     # what BENCHMARKS.md reports
    python bench/soak_sparro.py --kills extended=40 --kills extended-unrestricted=20

Prints one JSON summary on stdout (progress on stderr); exit status 1 if anything failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tablebase.db.store import StoreError, TablebaseStore
from tablebase.solver.tiered import TIERS

TABLEBASE = [sys.executable, "-c", "from tablebase.cli.main import main; main()"]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def solve(db: Path, variant: str) -> subprocess.Popen:
    return subprocess.Popen(TABLEBASE + ["solve", "sparro", "--variant", variant, "--db", str(db), "-s"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stored(db: Path, variant: str) -> tuple[str | None, dict[int, str]]:
    """(table status, tier -> checksum), every tier re-read and verified against its checksum."""
    with TablebaseStore(db, readonly=True) as store:
        table = store.table("sparro", variant)
        if table is None:
            return None, {}
        tiers = store.stored_tiers(table.id)
        for tier in tiers:
            store.read_tier(table.id, tier, table.payload_dtype)  # raises StoreError if damaged
        return table.status, tiers


def table_checksum(db: Path, variant: str) -> str | None:
    with TablebaseStore(db, readonly=True) as store:
        table = store.table("sparro", variant)
        return table.checksum if table else None


def check(db: Path, sample: int) -> dict:
    done = subprocess.run(TABLEBASE + ["check", "--db", str(db), "--sample", str(sample), "--json"],
                          capture_output=True, text=True)
    report = json.loads(done.stdout) if done.stdout.strip() else {"ok": False, "stderr": done.stderr}
    report["exit_status"] = done.returncode
    return report


def tier_count(db: Path, variant: str) -> int:
    """Tiers stored so far (0 while the file or the table does not exist yet)."""
    try:
        with TablebaseStore(db, readonly=True) as store:
            table = store.table("sparro", variant)
            return len(store.stored_tiers(table.id)) if table else 0
    except StoreError:
        return 0


def timeline(process: subprocess.Popen, db: Path, variant: str) -> list[float]:
    """Seconds from the start until 1, 2, ... tiers were stored, and finally until the end."""
    started = time.perf_counter()
    times: list[float] = [0.0]
    while process.poll() is None:
        count = tier_count(db, variant)
        while len(times) <= count:
            times.append(time.perf_counter() - started)
        time.sleep(0.02)
    if process.returncode != 0:
        raise SystemExit(f"clean solve of {variant} failed: {process.stderr.read().decode()}")
    return times + [time.perf_counter() - started] * (TIERS + 1 - len(times))


def soak_variant(variant: str, kills: int, folder: Path, rng: random.Random, sample: int) -> dict:
    clean_db = folder / f"clean-{variant}.sqlite"
    times = timeline(solve(clean_db, variant), clean_db, variant)
    clean_seconds = times[-1]
    reference = (table_checksum(clean_db, variant), stored(clean_db, variant)[1])
    log(f"{variant}: clean solve {clean_seconds:.1f} s, first tier after {times[1]:.1f} s, checksum {reference[0]}")

    result: dict = {"variant": variant, "clean_solve_seconds": round(clean_seconds, 1),
                    "first_tier_seconds": round(times[1], 1), "kills": 0,
                    "resumes": 0, "finished_before_kill": 0, "killed_after_completion": 0, "chains": [], "failures": []}
    chain = 0
    while result["kills"] < kills:
        chain += 1
        db = folder / f"soak-{variant}-{chain}.sqlite"
        kills_in_chain = 0
        while True:
            have = tier_count(db, variant) if db.exists() else 0
            # a resume redoes start-up and enumeration (about the time to the first tier), then the rest
            expected = clean_seconds if have == 0 else times[1] + clean_seconds - times[have]
            delay = rng.uniform(0.1, 0.95 * expected)
            process = solve(db, variant)
            started = time.perf_counter()
            try:
                process.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                process.kill()  # SIGKILL
                process.wait()
                result["kills"] += 1
                kills_in_chain += 1
                try:
                    status, tiers = stored(db, variant) if db.exists() else (None, {})
                except StoreError as exc:
                    result["failures"].append(f"after kill {result['kills']}: {exc}")
                    break
                log(f"{variant}: kill {result['kills']} {time.perf_counter() - started:.2f} s into the run "
                    f"({have} tiers stored before): {len(tiers)} tiers stored ({status})")
                if status == "complete":  # killed while exiting: it does not count as a kill during a solve
                    result["kills"] -= 1
                    kills_in_chain -= 1
                    result["killed_after_completion"] += 1
                    break
                if result["kills"] >= kills:
                    break
                result["resumes"] += 1
                continue
            if process.returncode != 0:
                result["failures"].append(f"solve exited {process.returncode}: {process.stderr.read().decode()}")
                break
            result["finished_before_kill"] += 1
            break
        # the resume that finishes the chain, without a kill
        final = solve(db, variant)
        if final.wait() != 0:
            result["failures"].append(f"final resume failed: {final.stderr.read().decode()}")
            continue
        result["resumes"] += 1
        got = (table_checksum(db, variant), stored(db, variant)[1])
        report = check(db, sample)
        equal = got == reference
        result["chains"].append({"kills": kills_in_chain, "checksums_equal": equal, "check_ok": report["ok"],
                                 "check_exit_status": report["exit_status"],
                                 "checked_positions": sum(t["sampled"] for t in report.get("tables", [])),
                                 "searched_positions": sum(t["searched"] for t in report.get("tables", []))})
        if not equal:
            result["failures"].append(f"chain {chain}: checksums differ from the clean solve")
        if not report["ok"] or report["exit_status"] != 0:
            result["failures"].append(f"chain {chain}: check failed: {report}")
        log(f"{variant}: chain {chain} done: {kills_in_chain} kills, checksums equal: {equal}, "
            f"check ok: {report['ok']}")
    result["final_db"] = str(db)
    return result


def generate(db: Path, count: int, seed: int) -> subprocess.Popen:
    return subprocess.Popen(TABLEBASE + ["puzzles", "generate", "sparro", "--count", str(count), "--seed", str(seed),
                                         "--db", str(db), "--json", "-s"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stored_puzzles(db: Path) -> dict[int, tuple[str, int]]:
    """id -> (position, canonical key) of every stored Sparro puzzle."""
    from tablebase.db.puzzles import PuzzleStore

    with TablebaseStore(db, readonly=True) as store:
        return {p.id: (p.position, p.canonical_key) for p in PuzzleStore(store).find(game="sparro")}


def soak_puzzles(kills: int, count: int, folder: Path, rng: random.Random, sample: int) -> dict:
    """SIGKILL `puzzles generate sparro` at random moments and run it again until it has
    stored ``count`` puzzles. Every puzzle printed before a kill must be stored; the file
    must open, its tables must keep the clean checksums and pass `tablebase check`."""
    solved = folder / "puzzles-solved.sqlite"
    if solve(solved, "standard").wait() != 0:
        raise SystemExit("cannot solve the standard table for the puzzle soak")
    reference = (table_checksum(solved, "standard"), stored(solved, "standard")[1])
    clean_db = folder / "puzzles-clean.sqlite"
    shutil.copy(solved, clean_db)
    started = time.perf_counter()
    clean = generate(clean_db, count, 1)
    clean_out, _ = clean.communicate()
    clean_seconds = time.perf_counter() - started
    if clean.returncode != 0 or len(clean_out.splitlines()) != count:
        raise SystemExit(f"clean puzzle generation failed: {clean_out[-500:]}")
    log(f"puzzles: clean generation of {count} in {clean_seconds:.1f} s")
    result: dict = {"count": count, "clean_seconds": round(clean_seconds, 1), "kills": 0, "runs": 0,
                    "printed_before_kills": 0, "stored_when_killed": 0, "lost": 0, "chains": [], "failures": []}
    chain = 0
    while result["kills"] < kills:
        chain += 1
        db = folder / f"puzzles-soak-{chain}.sqlite"
        shutil.copy(solved, db)
        kills_in_chain = 0
        while result["kills"] < kills:
            have = len(stored_puzzles(db))
            if have >= count:
                break
            expected = clean_seconds * (count - have) / count
            process = generate(db, count - have, 100 * chain + kills_in_chain)
            result["runs"] += 1
            printed: list[dict] = []
            reader = threading.Thread(target=lambda: printed.extend(
                json.loads(line) for line in process.stdout if line.strip()), daemon=True)  # type: ignore[union-attr]
            reader.start()
            try:
                process.wait(timeout=rng.uniform(0.1, 0.95 * expected + 0.5))
                reader.join()
                continue  # finished before its kill: no kill counted
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                reader.join()
            result["kills"] += 1
            kills_in_chain += 1
            try:
                kept = stored_puzzles(db)
                stored(db, "standard")  # the tables still open and verify
            except StoreError as exc:
                result["failures"].append(f"after kill {result['kills']}: {exc}")
                break
            lost = [p["id"] for p in printed if p["id"] not in kept or kept[p["id"]][0] != p["position"]]
            result["printed_before_kills"] += len(printed)
            result["stored_when_killed"] += len(kept) - have
            result["lost"] += len(lost)
            if lost:
                result["failures"].append(f"kill {result['kills']}: printed puzzles {lost} were not stored")
            log(f"puzzles: kill {result['kills']}, {len(printed)} printed, {len(kept) - have} newly stored, "
                f"{len(kept)} in all")
        # finish the chain
        while len(stored_puzzles(db)) < count:
            final = generate(db, count - len(stored_puzzles(db)), 1000 + chain)
            _, errors = final.communicate()
            result["runs"] += 1
            if final.returncode != 0:
                result["failures"].append(f"chain {chain}: final run failed: {errors}")
                break
        kept = stored_puzzles(db)
        distinct = len({key for _, key in kept.values()}) == len(kept)
        equal = (table_checksum(db, "standard"), stored(db, "standard")[1]) == reference
        report = check(db, sample)
        result["chains"].append({"kills": kills_in_chain, "puzzles": len(kept), "distinct": distinct,
                                 "table_checksums_equal": equal, "check_ok": report["ok"]})
        if len(kept) != count or not distinct or not equal or not report["ok"]:
            result["failures"].append(f"chain {chain}: {result['chains'][-1]}")
        log(f"puzzles: chain {chain} done: {kills_in_chain} kills, {len(kept)} puzzles, checksums equal: {equal}")
    return result


def corruption(db: Path, folder: Path, rng: random.Random, flips: int) -> dict:
    """Change one byte on disk inside a stored blob, ``flips`` times on fresh copies."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:  # reading blobs to aim at, not the store
        blocks = conn.execute("SELECT tier, block FROM blocks").fetchall()
        targets = []
        for tier, block in rng.sample(blocks, flips):
            column = rng.choice(["keys", "payload"])
            blob = conn.execute(f"SELECT {column} FROM blocks WHERE tier = ? AND block = ?", (tier, block)).fetchone()
            targets.append((tier, block, column, blob[0]))
    conn.close()
    outcomes = []
    for n, (tier, block, column, blob) in enumerate(targets):
        copy = folder / f"corrupt-{n}.sqlite"
        shutil.copy(db, copy)
        data = bytearray(copy.read_bytes())
        at = data.find(blob[len(blob) // 2:len(blob) // 2 + 32])
        if at < 0:
            outcomes.append({"tier": tier, "block": block, "column": column, "detected": None})
            continue
        data[at + 5] ^= 1 << rng.randrange(8)
        copy.write_bytes(bytes(data))
        report = check(copy, 0)
        failures = [f for t in report.get("tables", []) for f in t["failures"]]
        detected = report["exit_status"] == 1 and any(f"tier {tier} " in f for f in failures)
        outcomes.append({"tier": tier, "block": block, "column": column, "detected": detected,
                         "message": failures[0] if failures else report.get("stderr")})
        copy.unlink()
    return {"flips": len(outcomes), "detected": sum(o["detected"] is True for o in outcomes), "cases": outcomes}


def machine() -> dict:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version, "system": platform.platform()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", action="append", metavar="VARIANT=N",
                        help="kills for a variant (repeatable; default extended=20 standard=10)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sample", type=int, default=200, help="positions per table for `tablebase check`")
    parser.add_argument("--flips", type=int, default=10, help="single-byte corruptions to detect")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep the files")
    parser.add_argument("--puzzle-kills", type=int, default=10,
                        help="SIGKILLs of `puzzles generate sparro` (0: none)")
    parser.add_argument("--puzzles", type=int, default=40, help="puzzles each generation chain must store")
    args = parser.parse_args()
    plan = dict(item.split("=") for item in (args.kills or ["extended=20", "standard=10"]))
    rng = random.Random(args.seed)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="soak-sparro-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.time()
    summary: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                     "command": " ".join(["python", "bench/soak_sparro.py"] + sys.argv[1:]), "seed": args.seed,
                     "variants": []}
    for variant, kills in plan.items():
        summary["variants"].append(soak_variant(variant, int(kills), folder, rng, args.sample))
    if args.puzzle_kills:
        summary["puzzles"] = soak_puzzles(args.puzzle_kills, args.puzzles, folder, rng, args.sample)
    summary["corruption"] = corruption(Path(summary["variants"][0]["final_db"]), folder, rng, args.flips)
    summary["minutes"] = round((time.time() - started) / 60, 1)
    summary["ok"] = (not any(v["failures"] for v in summary["variants"])
                     and not summary.get("puzzles", {}).get("failures")
                     and summary["corruption"]["detected"] == summary["corruption"]["flips"])
    print(json.dumps(summary, indent=1))
    if not args.keep:
        shutil.rmtree(folder)
    sys.exit(0 if summary["ok"] else 1)


if __name__ == "__main__":
    main()
