"""What GitHub and GitLab do alike: a comment on the review (a pull or merge request) per
suite, found again by the marker on its first line and updated in place, clipped to the
forge's longest body; a status on the head commit named after the suite; a line said for each,
or why it could not be done."""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx


@dataclass(frozen=True)
class Forge(ABC):
    api: str
    token: str
    sha: str
    review: int | None  # the pull or merge request's number; None outside one

    OUTSIDE: ClassVar[str]  # said when there is no review to comment on

    def post(self, suite: str, verdict: str | None, markdown: str, details_url: str
             ) -> list[str]:
        """The comment (on a review) and the status (on its head commit); what was done, or
        why not, a line each."""
        said = []
        with httpx.Client(base_url=self.api, timeout=30, headers=self.headers()) as client:
            try:
                said.append(self.OUTSIDE if self.review is None
                            else self.comment(client, suite, markdown))
                if self.sha:
                    said.append(self.status(client, suite, verdict, markdown, details_url))
            except httpx.HTTPError as error:
                said.append(f"could not reach {self.api}: {type(error).__name__}: {error}")
        return said

    @abstractmethod
    def headers(self) -> dict[str, str]: ...

    @abstractmethod
    def refused(self) -> str:
        """Why the forge may have refused the token (said after a 401 or 403)."""

    @abstractmethod
    def comment(self, client: httpx.Client, suite: str, markdown: str) -> str: ...

    @abstractmethod
    def status(self, client: httpx.Client, suite: str, verdict: str | None, markdown: str,
               details_url: str) -> str: ...

    def failed(self, what: str, answer: httpx.Response) -> str:
        try:
            error = answer.json()
            # GitHub's {"message"}; GitLab's {"message"}, {"error"} or {"error_description"}
            message = (error.get("message") or error.get("error_description")
                       or error.get("error") or "")
        except (ValueError, AttributeError):
            message = answer.text[:200]
        refused = f" ({self.refused()})" if answer.status_code in (401, 403) else ""
        return f"could not {what}: HTTP {answer.status_code} {message}{refused}"


def marker(suite: str) -> str:
    return f"<!-- latlab: suite={suite} -->"


def marked(suite: str, markdown: str, limit: int) -> str:
    """The comment's body: the marker that finds it again, then the verdict, clipped."""
    return f"{marker(suite)}\n{markdown}"[:limit]


def status_name(suite: str) -> str:
    return f"latlab: {suite}"


def find_marked(client: httpx.Client, url: str, params: dict[str, Any], mark: str
                ) -> tuple[dict[str, Any] | None, httpx.Response]:
    """The first comment whose body starts with `mark`, read page by page as both forges
    page (a `Link: <...>; rel="next"` header), and the last answer read (not a success when
    a page could not be read)."""
    listed = client.get(url, params=params)
    while listed.is_success:
        found = next((c for c in listed.json() if (c.get("body") or "").startswith(mark)),
                     None)
        following = listed.links.get("next", {}).get("url")
        if found is not None or following is None:
            return found, listed
        listed = client.get(following)  # the next page's address carries the query
    return None, listed
