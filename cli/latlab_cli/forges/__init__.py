"""The verdict where the change is reviewed (`latlab submit --comment`): one comment per pull
or merge request and suite, updated in place on every push (found again by the marker on its
first line), and a status on the head commit that follows the verdict, so a merge can require
it. The forge is the CI's own: GitLab when GitLab CI says so (GITLAB_CI), else GitHub."""

import os
from collections.abc import Mapping

from latlab_cli.forges.github import GitHub
from latlab_cli.forges.gitlab import GitLab
from latlab_cli.forges.shared import Forge

__all__ = ["Forge", "GitHub", "GitLab", "from_env"]


def from_env(environ: Mapping[str, str] = os.environ) -> Forge:
    if environ.get("GITLAB_CI"):
        return GitLab.from_env(environ)
    return GitHub.from_env(environ)
