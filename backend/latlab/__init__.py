"""latlab: a latency lab — store, compare and guard latency distributions."""
