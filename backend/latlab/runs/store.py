"""Writing series and trials in bulk: ids reserved from their sequences, rows sent with
Postgres COPY. The ingest of one run and the benchmark's load of a million use this one path.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from psycopg.types.json import Jsonb
from sqlalchemy import text
from sqlalchemy.orm import Session

SERIES_COLUMNS = ("id", "run_id", "labels", "label_key", "summary", "summary_origin",
                  "summary_uncorrected", "metrics", "failures", "history", "params_key",
                  "started_at", "branch", "host_name")
TRIAL_COLUMNS = ("id", "started_at", "series_id", "index", "histogram",
                 "histogram_uncorrected", "count", "min", "max", "mean", "stddev", "p50", "p90",
                 "p95", "p99", "p999", "p9999", "exact", "summary_origin", "summary_uncorrected",
                 "metrics", "failures", "intervals", "tuning", "disturbed")
RUN_COLUMNS = ("id", "project_id", "suite", "scenario", "params", "started_at", "finished_at",
               "created_at", "source_kind", "commit", "branch", "host_name", "host_tags",
               "host_fingerprint", "verdict", "verdict_reasons", "metric_info",
               "series_count", "trial_count")
_JSON = {"labels", "summary", "summary_origin", "summary_uncorrected", "metrics", "failures",
         "intervals", "tuning", "params", "host_fingerprint", "verdict_reasons", "metric_info"}


def reserve_ids(session: Session, table: str, count: int) -> list[int]:
    """`count` ids from the table's sequence, for rows written by COPY."""
    if count == 0:
        return []
    return list(session.scalars(text(
        f"SELECT nextval('{table}_id_seq') FROM generate_series(1, :n)"), {"n": count}))


def copy_rows(session: Session, table: str, columns: Sequence[str],
              rows: Iterable[dict[str, Any]]) -> int:
    """Writes rows (dicts keyed by column) with COPY, in the session's transaction."""
    connection = session.connection().connection.driver_connection
    assert connection is not None
    written = 0
    names = ", ".join(f'"{column}"' for column in columns)
    with connection.cursor() as cursor, cursor.copy(
            f'COPY "{table}" ({names}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row([_value(c, row.get(c)) for c in columns])
            written += 1
    return written


def _value(column: str, value: Any) -> Any:
    if column in _JSON and value is not None:
        return Jsonb(value)
    return value
