"""The web explorer: `tablebase serve` (see docs/explorer.md)."""
