"""The application's errors: raised by services, rendered by one handler in `latlab.main`."""


class AppError(Exception):
    status_code = 400
    # Seconds to wait before trying again, sent as `Retry-After` when set.
    retry_after: int | None = None

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Unauthorized(AppError):
    status_code = 401


class Forbidden(AppError):
    status_code = 403


class NotFound(AppError):
    status_code = 404


class Conflict(AppError):
    status_code = 409


class Gone(AppError):
    """Data retention removed what was asked for; what remains is said in the detail."""

    status_code = 410


class PayloadTooLarge(AppError):
    status_code = 413


class TooManyRequests(AppError):
    status_code = 429

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class ServiceUnavailable(AppError):
    """The lab cannot answer now (busy, or a part of it down); the request may be retried."""

    status_code = 503

    def __init__(self, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class Unprocessable(AppError):
    """A well-formed body whose content cannot be used (e.g. an undecodable histogram)."""

    status_code = 422

    def __init__(self, detail: str, path: str = "$") -> None:
        super().__init__(detail)
        self.path = path
