"""Share links: read-only views of a run, a comparison or a trend, opened without a login."""
