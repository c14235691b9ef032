"""Commands for Sparro (registered on the verb groups of cli/app.py)."""
