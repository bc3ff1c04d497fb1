"""GitLab: the comment is a note on the merge request, the status a commit status on the
pipeline's commit (an external job of the pipeline: `failed` fails the pipeline, so "Pipelines
must succeed" makes a merge require it).

GitLab CI gives what it needs: `CI_API_V4_URL`, `CI_PROJECT_ID`, `CI_COMMIT_SHA` and
`CI_PIPELINE_ID` (the status's project, commit and pipeline) and, in a merge request pipeline
only, `CI_MERGE_REQUEST_IID` and `CI_MERGE_REQUEST_PROJECT_ID` (the note's: a fork's pipeline
runs in the fork; outside a merge request, only the status). The token is `LATLAB_GITLAB_TOKEN`
(a project or personal access token, sent as PRIVATE-TOKEN) or else the job's `CI_JOB_TOKEN`
(sent as JOB-TOKEN), which GitLab lets read a merge request's notes but neither write one nor
post a commit status: what could not be posted is said, and the submission's exit status is
the verdict's, as without `--comment`."""

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

import httpx

from latlab_cli.errors import CliError
from latlab_cli.forges.shared import Forge, find_marked, marked, marker, status_name

# A commit status's state for each verdict: a failed gate fails the pipeline; a verdict that
# settled nothing is skipped (GitHub's neutral), which does not.
STATES = {"pass": "success", "fail": "failed"}
NOTE_LIMIT = 1_000_000  # a note's longest body (Gitlab::Database::MAX_TEXT_SIZE_LIMIT)
DESCRIPTION_LIMIT = 255  # a commit status's longest description


@dataclass(frozen=True)
class GitLab(Forge):
    project: str  # the pipeline's, where the status goes
    review_project: str  # the merge request's, where the note goes
    token_header: str  # PRIVATE-TOKEN, or JOB-TOKEN for CI_JOB_TOKEN
    pipeline: int | None  # the job's pipeline, which the status joins
    web_url: str  # the merge request's project's page (CI_MERGE_REQUEST_PROJECT_URL)

    OUTSIDE = "not a merge request pipeline: no note, only the commit status"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "GitLab":
        private = environ.get("LATLAB_GITLAB_TOKEN")
        token = private or environ.get("CI_JOB_TOKEN")
        api, project = environ.get("CI_API_V4_URL"), environ.get("CI_PROJECT_ID")
        if not token or not api or not project:
            raise CliError("--comment in GitLab CI needs CI_API_V4_URL, CI_PROJECT_ID and a "
                           "token: LATLAB_GITLAB_TOKEN (a project access token with the api "
                           "scope) or CI_JOB_TOKEN")
        iid, pipeline = environ.get("CI_MERGE_REQUEST_IID", ""), environ.get("CI_PIPELINE_ID", "")
        return cls(api=api.rstrip("/"), token=token, sha=environ.get("CI_COMMIT_SHA", ""),
                   review=int(iid) if iid.isdigit() else None, project=quote(project, safe=""),
                   review_project=quote(environ.get("CI_MERGE_REQUEST_PROJECT_ID") or project,
                                        safe=""),
                   token_header="PRIVATE-TOKEN" if private else "JOB-TOKEN",
                   pipeline=int(pipeline) if pipeline.isdigit() else None,
                   web_url=(environ.get("CI_MERGE_REQUEST_PROJECT_URL")
                            or environ.get("CI_PROJECT_URL", "")).rstrip("/"))

    def headers(self) -> dict[str, str]:
        return {self.token_header: self.token}

    def refused(self) -> str:
        if self.token_header == "JOB-TOKEN":
            return ("GitLab lets CI_JOB_TOKEN read notes but neither write them nor post "
                    "commit statuses: set LATLAB_GITLAB_TOKEN to a project access token with "
                    "the api scope and the Developer role; the verdict is in --summary's file")
        return ("LATLAB_GITLAB_TOKEN needs the api scope and the Developer role, unexpired; "
                "the verdict is in --summary's file")

    def comment(self, client: httpx.Client, suite: str, markdown: str) -> str:
        notes = f"/projects/{self.review_project}/merge_requests/{self.review}/notes"
        found, listed = find_marked(client, notes, {"per_page": 100, "sort": "asc"},
                                    marker(suite))
        if not listed.is_success:
            return self.failed("read the merge request's notes", listed)
        body = {"body": marked(suite, markdown, NOTE_LIMIT)}
        if found is not None:
            answer = client.put(f"{notes}/{found['id']}", json=body)
            return (f"note updated: {self._address(answer)}" if answer.is_success
                    else self.failed("update the note", answer))
        answer = client.post(notes, json=body)
        return (f"note posted: {self._address(answer)}" if answer.is_success
                else self.failed("post the note", answer))

    def status(self, client: httpx.Client, suite: str, verdict: str | None, markdown: str,
               details_url: str) -> str:
        state = STATES.get(verdict or "", "skipped")
        answer = client.post(f"/projects/{self.project}/statuses/{self.sha}", json={
            "state": state, "name": status_name(suite), "target_url": details_url,
            "description": f"latlab: {verdict or 'not judged'}"[:DESCRIPTION_LIMIT],
            **({"pipeline_id": self.pipeline} if self.pipeline else {})})
        return (f"commit status {state}: {status_name(suite)} on {self.sha[:12]}"
                if answer.is_success else self.failed("post the commit status", answer))

    def _address(self, answer: httpx.Response) -> str:
        """A note's page (GitLab answers none): the merge request's, at the note."""
        note = answer.json()["id"]
        return (f"{self.web_url}/-/merge_requests/{self.review}#note_{note}" if self.web_url
                else f"note {note} of merge request !{self.review}")
