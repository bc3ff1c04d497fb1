"""The field types every part of the result contract is built of: names, text, moments,
counts and measured numbers with the bounds the lab computes within, and `Contract`, the
base that refuses unknown fields."""

from datetime import UTC, datetime
from typing import Annotated

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
)

# Postgres refuses NUL in text and JSON, so no string of the contract may hold one.
NO_NUL = r"^[^\x00]*$"
# A suite's, scenario's or tag's name; a host's name.
SLUG = r"^[a-z0-9][a-z0-9._-]{0,63}$"
HOST_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$"
Slug = Annotated[str, StringConstraints(pattern=SLUG)]
HostName = Annotated[str, StringConstraints(pattern=HOST_NAME)]
Key = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")]
Text = Annotated[str, StringConstraints(max_length=500, pattern=NO_NUL)]
# A label value: a harness's benchmark name or command line (hyperfine's can be long).
LabelValue = Annotated[str, StringConstraints(max_length=1024, pattern=NO_NUL)]
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
Int64 = Annotated[int, Field(strict=True, ge=INT64_MIN, le=INT64_MAX)]
# Moments the lab deals in: from the Unix epoch to 2200 (date arithmetic stays in range).
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC)


def _in_range(moment: datetime) -> datetime:
    if not EARLIEST <= moment < LATEST:
        raise ValueError(f"the date must lie between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}")
    return moment


Moment = Annotated[AwareDatetime, AfterValidator(_in_range)]
# Latency is integer nanoseconds up to one hour (the stored histograms' range).
HIGHEST_NS = 3_600_000_000_000
LatencyNs = Annotated[int, Field(strict=True, ge=0, le=HIGHEST_NS)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
# Numbers the lab does arithmetic on (variances, sums of squares, ratios): within +-1e18, so
# none of those overflows a float.
MAX_MEASURED = 1e18
Measured = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_MEASURED, le=MAX_MEASURED)]
NonNegative = Annotated[float, Field(allow_inf_nan=False, ge=0, le=MAX_MEASURED)]


def _no_wide_int(value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool) and not (
            INT64_MIN <= value <= INT64_MAX):
        raise ValueError("integers must lie within the signed 64-bit range")
    return value


# A param or fingerprint value: an integer too wide for int64 is refused, not made a float.
Scalar = Text | bool | Int64 | Annotated[Finite, BeforeValidator(_no_wide_int)] | None

MAX_SAMPLES = 20_000_000
# The most values one histogram may count: 2^48 (a billion a second for three days). Every
# count from outside is held to it before a histogram library sees it, so sums of a thousand
# trials' counts still fit in int64 with room to spare.
MAX_COUNT = 2**48
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_COUNT)]


class Contract(BaseModel):
    """Unknown fields are refused everywhere in the contract."""

    model_config = ConfigDict(extra="forbid")
