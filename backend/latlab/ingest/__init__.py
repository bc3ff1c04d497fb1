"""Storing and judging a run: the flow above the domains it calls (runs, analysis, alerts,
jobs). A CI submission (`POST /runs`) and a runner's outcome (the ingest worker) both come
here."""
