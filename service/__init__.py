"""What every interface (the CLI, scripts, notebooks, a web app) calls.

* `service.api`: the facade, `tablebase.open(path)` -> `Tablebase` (probe, tables, solve,
  verify, puzzles, check);
* `service.games`: one `GameDescription` per game, in the registry `GAMES`;
* `service.tables`: stored-table lookups and the version policy (one place);
* `service.solving`: solve / resume a table into a file, with progress callbacks;
* `service.probing`: probe answers for one position or a batch, from a table or a search;
* `service.check`, `service.verify`, `service.puzzles`: the audit, the fairness claims
  and the puzzle workflows;
* `service.repetition`: lines of play that come back to a position (can play repeat?);
* `service.errors`: the exceptions an interface turns into one line (or HTTP 400);
* `service.progress`: the progress events long work reports.
"""
