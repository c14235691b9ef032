"""The `tablebase` click group, its per-verb subgroups, and what every command shares.

Each verb that works on a game (`show`, `moves`, ...) is a group with one subcommand
per game, registered by `cli/sparro.py` and `cli/smallholder.py`. The service's user
errors (`service.errors.USER_ERRORS`: bad notation, illegal moves, storage problems,
requests it cannot serve) become a one-line message on stderr and exit status 1 here,
in one place. Progress events of long work are drawn on stderr by `progress_printer`.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
import time
from importlib.metadata import version
from typing import Any, Callable

import click

from tablebase.service.errors import USER_ERRORS, NotationError, UnreachablePositionError
from tablebase.service.progress import Progress, ProgressEvent
from tablebase.service.puzzles import DEPTH_FILTER_RANGE

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class TablebaseError(click.ClickException):
    """A user-facing failure: printed as one line on stderr, exit status 1."""


def error_text(exc: Exception, command: click.Command | None = None) -> str:
    """A service error's line as the command line says it: its message, except that an
    unreachable position's names the ``command``'s --allow-unreachable (default: the
    running command's), not the Python keyword, or nothing where the command has none."""
    if isinstance(exc, UnreachablePositionError):
        if command is None:
            context = click.get_current_context(silent=True)
            command = context.command if context is not None else None
        flag = command is not None and any(param.name == "allow_unreachable" for param in command.params)
        return exc.message("give --allow-unreachable" if flag else None)
    return str(exc)


class Seconds(click.FloatRange):
    """A number of seconds, at least ``min`` (default 0): click's FloatRange alone lets
    'nan' through, since every comparison with it is false, and calls 'abc' "not a valid
    float range"."""

    name = "seconds"

    def __init__(self, min: float = 0, max: float | None = None) -> None:  # noqa: A002 (click's names)
        super().__init__(min=min, max=max)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not _is_float(value):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        seconds = super().convert(value, param, ctx)
        if math.isnan(seconds):
            self.fail(f"{value!r} is not a number of seconds.", param, ctx)
        return seconds


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class Whole(click.IntRange):
    """A whole number from ``min`` to ``max`` (click's IntRange, which calls 'x' "not a
    valid integer range" and shows INTEGER RANGE in the help)."""

    name = "whole number"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str | None:
        return "N" if isinstance(param, click.Option) else None  # an argument keeps its own name


class Checked(click.ParamType):
    """An option value that a service parser checks (``check`` raises the service's
    NotationError on a bad one: an unknown board, ruleset, rules option), passed on as
    given. A value the parser refuses is a usage error (exit status 2) naming the option,
    with the parser's own message; the parsing itself stays in the service."""

    def __init__(self, name: str, check: Callable[[str], object]) -> None:
        self.name = name
        self.check = check

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            self.check(value)
        except NotationError as exc:
            self.fail(str(exc), param, ctx)
        return value


class CheckedChoice(Checked, click.Choice):
    """A choice among ``choices`` (listed in the help as click's choices are) that the
    service checks as `Checked` does: a value refused is a usage error carrying the
    service's own message, the line the web explorer and the Python API give for it."""

    def __init__(self, choices: tuple[str, ...], check: Callable[[str], object]) -> None:
        click.Choice.__init__(self, choices)
        Checked.__init__(self, "choice", check)


class OneLineUsageError(click.UsageError):
    """A usage error (a bad option, argument or combination of them; exit status 2) shown
    as one line on stderr like every other error, naming the help to read, instead of
    click's usage block followed by the error."""

    def show(self, file: Any = None) -> None:
        hint = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        click.echo(f"Error: {self.format_message()}{hint}", file=file, err=file is None)


def _one_line(exc: click.UsageError) -> click.UsageError:
    if isinstance(exc, (OneLineUsageError, click.exceptions.NoArgsIsHelpError)):
        return exc  # already one line; or the help itself, asked for by giving nothing
    return OneLineUsageError(exc.format_message(), exc.ctx)


class _Group(click.Group):
    """A group that turns the engines' domain errors into clean CLI errors, and shows
    usage errors as one line too."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:  # the group's own options, or a command that does not exist
            raise _one_line(exc) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:  # from the command invoked (its context is closed by now)
            name = ctx.invoked_subcommand
            raise TablebaseError(error_text(exc, self.get_command(ctx, name) if name else None)) from None
        except click.UsageError as exc:  # a command's options and arguments
            raise _one_line(exc) from None
        finally:  # what is printed next (an error, the shell's prompt) starts a line of its own
            end_status_line()


#: When the `tablebase` program's process started (`time.perf_counter` instant), set by
#: its entry point `run`; None where `main` is called inside a longer-lived process.
PROCESS_STARTED: float | None = None
#: When the running command started (`command_started`), set by `main`.
COMMAND_STARTED = 0.0


def command_started() -> float:
    """When the running command started (a `time.perf_counter` instant): its process's
    start for the `tablebase` program, start-up included; the call's where `main` is
    called in a process of its own making (tests, scripts). `probe`'s --time counts
    from it."""
    return COMMAND_STARTED


def search_since(position: str) -> float | None:
    """Where a probe's --time counts from: one position's, the command's start (start-up
    included); a batch's ('-'), each position's own search start (None)."""
    return command_started() if position != "-" else None


def process_started() -> float:
    """This process's start as a `time.perf_counter` instant (Linux: from /proc; elsewhere,
    or if that cannot be read: now)."""
    now = time.perf_counter()
    try:
        with open("/proc/self/stat") as stat, open("/proc/uptime") as uptime:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22: start time since boot
            age = float(uptime.read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - min(max(age, 0.0), 60.0)


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@click.version_option(version("tablebase"), "-V", "--version", prog_name="tablebase")
def main() -> None:
    """Exact analysis of Sparro and The Smallholder: solve positions, generate puzzles,
    check fairness claims.

    Positions are written in the project notation (see `tablebase show GAME --help`).
    Results go to stdout, progress and messages to stderr.

    \b
    Example:
        tablebase show sparro
        tablebase moves sparro '............/......../....'
    """
    global COMMAND_STARTED
    COMMAND_STARTED = PROCESS_STARTED if PROCESS_STARTED is not None else time.perf_counter()


def run() -> None:
    """The `tablebase` program: `main`, with the command's clock started at the process's start."""
    global PROCESS_STARTED
    PROCESS_STARTED = process_started()
    main()


def _game_group(name: str, help_text: str) -> click.Group:
    @main.group(name, cls=_Group, context_settings=CONTEXT_SETTINGS, help=help_text)
    def group() -> None:
        pass

    return group


show = _game_group("show", "Draw a position as text, with whose turn it is and what is on the board.")
moves = _game_group("moves", "List the legal moves of positions (one, or many from stdin with '-').")
solve = _game_group("solve", "Solve every reachable position of a game into the tablebase file.")
probe = _game_group("probe", "Look up exact values: a position and each of its moves, best first.")
atlas = _game_group("atlas", "Every rules option combination (or variant) of a game side by side, exactly.")
compare = _game_group("compare", "Chosen rules combinations side by side, with the moves where their values differ.")
cycle = _game_group("cycle", "Look for a line of play that comes back to a position: a proof that play can repeat.")

DEFAULT_DB = "tablebase.sqlite"

db_option = click.option(
    "--db", "db_path", type=click.Path(dir_okay=False), default=DEFAULT_DB, envvar="TABLEBASE_DB",
    show_default=True, help="Tablebase file (also settable with the TABLEBASE_DB environment variable).")
silent_option = click.option("-s", "--silent", is_flag=True, help="No progress output on stderr.")


def search_time_option(default: float) -> Callable[[Callable], Callable]:
    """A probe's --time: the search's wall-clock bound (`search_since` says from when)."""
    return click.option("--time", "seconds", type=Seconds(), default=default, show_default=True,
                        help="Wall-clock seconds the search may take ('unknown' after that; 0: no time bound, only "
                             "--budget): for one position, counted from the command's start; for a batch ('-'), per "
                             "position.")
#: Seconds between two progress lines of a long run whose stderr is not a terminal.
DEFAULT_LOG_EVERY = 30.0
#: Where a command's --log-every waits in click's context for `long_run_progress`.
_LOG_EVERY = "tablebase.log_every"


def _remember_log_every(ctx: click.Context, _param: click.Parameter, value: float) -> float:
    ctx.meta[_LOG_EVERY] = value
    return value


def long_run_options(command: Callable) -> Callable:
    """-s/--silent and --log-every SECONDS: the progress options of a command that can run
    for minutes or hours (`long_run_progress` reads --log-every)."""
    command = click.option(
        "--log-every", type=click.FloatRange(min=0.1), default=DEFAULT_LOG_EVERY, show_default=True,
        metavar="SECONDS", expose_value=False, callback=_remember_log_every,
        help="When stderr is not a terminal (a log file, a pipe), print a progress line at most every "
             "SECONDS instead of the status line.")(command)
    return silent_option(command)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (one object per line).")


def cluster_options(does: str, each: str = "", default: str = "in-process") -> Callable[[Callable], Callable]:
    """The --workers N and --scheduler tcp://HOST:PORT options of a command that ``does``
    its work on a Dask cluster (``each``: how a worker takes it on; ``default``: where it
    runs without them)."""
    def decorate(command: Callable) -> Callable:
        command = click.option(
            "--scheduler", metavar="tcp://HOST:PORT", default=None,
            help=f"{does} on the Dask cluster of this scheduler (started with 'dask scheduler' and 'dask "
                 f"worker'; the workers need this package installed).")(command)
        return click.option(
            "--workers", type=Whole(1, 1024), default=None,
            help=f"{does} on a local Dask cluster of N worker processes{each} (default: {default}).")(command)
    return decorate


#: What --proof does in the commands that decide fairness claims (verify, serve).
DECIDE_FROM_PROOF = ("Also decide the first-player claim from this weak solution", " On a board whose tables are "
                     "checked too, the proof must agree with them.")


def proof_options(does: tuple[str, str] = DECIDE_FROM_PROOF) -> Callable[[Callable], Callable]:
    """The --proof FILE and --journal FILE options (repeatable, paired in order) of a
    command that takes first-player results from weak solutions (``does``: what the
    command does with each, and a last sentence of the help); `proof_pairs` pairs them."""
    def decorate(command: Callable) -> Callable:
        command = click.option(
            "--journal", "journals", metavar="FILE", multiple=True, type=click.Path(dir_okay=False),
            help="The check journal of each --proof, in the same order (repeatable): the big leaves are taken "
                 "from it.")(command)
        return click.option(
            "--proof", "proofs", metavar="FILE", multiple=True, type=click.Path(dir_okay=False),
            help=f"{does[0]} (repeatable): a proof of the empty board from 'tablebase proof export smallholder', "
                 f"checked first as by 'tablebase check --proof'.{does[1]}")(command)
    return decorate


def proof_pairs(proofs: tuple[str, ...], journals: tuple[str, ...]) -> tuple[tuple[str, str | None], ...]:
    """(proof, journal or None) for each --proof; a usage error unless there are no
    journals or one for each proof."""
    if journals and len(journals) != len(proofs):
        raise click.UsageError(f"--journal goes with --proof, one for each in the same order: "
                               f"{len(proofs)} --proof and {len(journals)} --journal given")
    return tuple(zip(proofs, journals or (None,) * len(proofs)))


def proof_arguments(pairs: tuple[tuple[str, str | None], ...]) -> list[str]:
    """The --proof/--journal options of `proof_pairs` as a command line gives them, each
    proof followed by its journal (for the command a generated page names), quoted for a
    shell as every path a generated page names."""
    return [option for proof, journal in pairs
            for option in [f"--proof {shlex.quote(proof)}"] + ([f"--journal {shlex.quote(journal)}"] if journal else [])]


solve_option = click.option("--solve", "solve", is_flag=True,
                            help="Solve the tables the command needs when the file lacks them (without it the "
                                 "command says what it would solve, and how long that takes, and stops).")


def show_progress(silent: bool) -> bool:
    """Progress goes to stderr, only when it is a terminal and not silenced."""
    return not silent and sys.stderr.isatty()


class ProgressLine:
    """Draws progress events as one status line per task on stderr, rewritten in place.

    A task whose length is unknown (a search) leaves its line open, without a newline;
    `end_status_line` ends it before a command prints its answer or an error, which on a
    terminal would otherwise go on the same line."""

    #: The line drawn last and not ended yet, if any.
    open_line: "ProgressLine | None" = None

    def __init__(self) -> None:
        self.task: str | None = None
        self.width = 0

    def __call__(self, event: ProgressEvent) -> None:
        if self.task is not None and event.task != self.task:
            click.echo(err=True)
            self.width = 0
        self.task = event.task
        line = str(event)
        click.echo("\r" + line.ljust(self.width), err=True, nl=False)
        self.width = len(line)
        ProgressLine.open_line = self
        if event.total and event.done == event.total:
            self.end()

    def end(self) -> None:
        if self.width:
            click.echo(err=True)
        self.task, self.width = None, 0
        if ProgressLine.open_line is self:
            ProgressLine.open_line = None


def end_status_line() -> None:
    """Ends the status line a `ProgressLine` left open, if any (see there)."""
    if ProgressLine.open_line is not None:
        ProgressLine.open_line.end()


class ProgressLog:
    """Progress events as plain stderr lines, at most one per ``interval`` seconds (for a
    long run whose stderr is a file, where a rewritten status line would not show)."""

    def __init__(self, interval: float = DEFAULT_LOG_EVERY) -> None:
        self.interval = interval
        self.last = -interval

    def __call__(self, event: ProgressEvent) -> None:
        now = time.monotonic()
        if now - self.last >= self.interval:
            self.last = now
            click.echo(f"[{time.strftime('%H:%M:%S')}] {event}", err=True)


def long_run_progress(silent: bool) -> Progress | None:
    """Progress of work that can take minutes or hours (solves, atlases, proofs, checks):
    the status line on a terminal, otherwise a log line every 30 s (the command's
    --log-every, `long_run_options`), so that a run whose stderr goes to a file still
    shows where it is (unless silenced)."""
    if silent:
        return None
    if sys.stderr.isatty():
        return ProgressLine()
    context = click.get_current_context(silent=True)
    interval = context.meta.get(_LOG_EVERY, DEFAULT_LOG_EVERY) if context else DEFAULT_LOG_EVERY
    return ProgressLog(interval)


def progress_printer(silent: bool) -> Progress | None:
    """The progress callback for a command: a status line on stderr when it is a
    terminal and not silenced, else none."""
    return ProgressLine() if show_progress(silent) else None


#: Ranges of the integer options and arguments: within what SQLite stores and what can
#: finish, so that a huge number is a usage error, never an overflow deep inside.
ID_RANGE = Whole(1, 2**63 - 1)
SEED_RANGE = Whole(0, 2**63 - 1)
DEPTH_RANGE = Whole(*DEPTH_FILTER_RANGE)
BUDGET_RANGE = Whole(1, 10**12)
#: What the --budget help of a Smallholder exact search adds: the search looks at its node
#: budget only every 4,096 positions (with the clock: `CLOCK_EVERY + 1` of
#: solver/smallholder_exact_kernel.py, docs/solver.md "Budgets"; a test holds them equal).
EXACT_BUDGET_STEP = ("The search looks at it only every 4,096 positions (docs/solver.md, \"Budgets\"): it may go "
                     "a few thousand past it, and a budget below 4,096 acts as 4,096.")

#: Positions read from stdin per call of a batched answer function.
BATCH_SIZE = 8192

Answer = Callable[[str], dict]
#: Answers many texts at once: per text, its answer or the domain error it raised.
AnswerMany = Callable[[list[str]], list[dict | Exception]]


def answer_each(answer: Answer) -> AnswerMany:
    """A batched answer function made of a one-position one."""

    def many(texts: list[str]) -> list[dict | Exception]:
        results: list[dict | Exception] = []
        for text in texts:
            try:
                results.append(answer(text))
            except USER_ERRORS as exc:  # this line only: the batch goes on
                results.append(exc)
        return results

    return many


def answer_positions(position: str, answer: Answer, as_json: bool, as_text: Callable[[dict], str],
                     answer_many: AnswerMany | None = None) -> None:
    """Answer one position, or with ``position == "-"`` every non-blank stdin line.

    Output is one JSON object per position with ``as_json``, else ``as_text(answer)``.
    A single bad position is an error (exit 1). In batch mode a bad line is answered
    with ``{"position": ..., "error": ...}`` (or, in text mode, ``error: line N: ...`` on
    stderr, N counting every input line from 1) and the batch goes on; the exit status is
    then 1. ``answer_many``, if given, answers stdin in chunks.
    """
    render = json.dumps if as_json else as_text
    if position != "-":
        result = answer(position)
        end_status_line()
        click.echo(render(result))
        return
    many = answer_many or answer_each(answer)
    failures = 0
    out = sys.stdout
    chunk: list[str] = []
    numbers: list[int] = []  # the input line number of each text of the chunk

    def flush() -> None:
        nonlocal failures
        results = many(chunk)
        end_status_line()
        for text, number, result in zip(chunk, numbers, results):
            if isinstance(result, Exception):
                failures += 1
                if as_json:
                    out.write(json.dumps({"position": text, "error": error_text(result)}) + "\n")
                else:
                    click.echo(f"error: line {number}: {error_text(result)}", err=True)
            else:
                out.write(render(result) + "\n")
        chunk.clear()
        numbers.clear()

    for number, line in enumerate(sys.stdin, start=1):
        text = line.strip()
        if text:
            chunk.append(text)
            numbers.append(number)
            if len(chunk) == BATCH_SIZE:
                flush()
    flush()
    if failures:
        raise TablebaseError(f"{failures} position(s) in the batch could not be answered")


pv_option = click.option("--pv", "show_pv", is_flag=True,
                         help="Also print the principal variation: the moves to the end under perfect play.")


def probe_texts(show_pv: bool, budget: int, seconds: float | None = None) -> Callable[[dict], str]:
    """`probe_text` for each answer of a probe; the first answer of the search that holds
    an 'unknown' also says on stderr, once, what that means: not proved within the
    search's bounds (``budget`` positions, ``seconds`` if any), named as the options
    give them."""
    bounds = (f"--time {seconds:g} s and " if seconds else "") + f"--budget {budget:,} positions"
    noted = False

    def text(answer: dict) -> str:
        nonlocal noted
        unknown = any(item["value"] == "unknown" for item in [answer, *answer["moves"]])
        if unknown and answer.get("source") == "search" and not noted:
            noted = True
            end_status_line()
            click.echo(f"note: 'unknown' is what the search did not prove within {bounds}; give it more "
                       f"to go further", err=True)
        return probe_text(answer, show_pv)

    return text


def bound_text(at_least: dict) -> str:
    """What an unknown answer's ``at_least`` proves, as a clause ("" when it proves only
    that a loss lasts some plies: a bound nobody asks for)."""
    if at_least["value"] == "win":
        return f"; a win in at most {at_least['remoteness']}"
    if at_least["value"] == "draw":
        return "; at least a draw"
    return ""


def probe_text(answer: dict, show_pv: bool = False) -> str:
    """One line per probed position: its value, then every move's, best first (and with
    ``show_pv`` the principal variation)."""

    def value(item: dict, joint: str = " ") -> str:
        return item["value"] + ("" if item["remoteness"] is None else f"{joint}{item['remoteness']}")

    head = f"{answer['position']}: {answer['to_move']} to move, {value(answer, ' in ')}"
    if answer.get("at_least"):  # a search that ran out after settling some moves
        settled = sum(m["value"] != "unknown" for m in answer["moves"])
        head += f" ({settled} of the {len(answer['moves'])} moves settled{bound_text(answer['at_least'])})"
    moves_part = ", ".join(f"{m['name']} {value(m)}" for m in answer["moves"])
    line = head + (f"; moves: {moves_part}" if moves_part else "")
    if show_pv:
        line += "; pv: " + (" ".join(answer["pv"]) if answer["pv"] else "none")
    return line
