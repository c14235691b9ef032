"""Commands for The Smallholder (registered on the verb groups of cli/app.py)."""
